import type pg from "pg"
import { NotFoundError } from "../../error/not-found.js"
import type { StorageWrite } from "../port.js"
import { refuseParentCycle } from "../rows.js"
import { encodeKey } from "./keys.js"
import type { Query, Statements } from "./queries.js"
import type { IndexedWrite, Step } from "./row-group.js"

/** PostgreSQL's SQLSTATE for a broken foreign key. */
const FOREIGN_KEY_VIOLATION = "23503"

/** What applying writes needs of its storage: the statements of its schema, and the row stamp. */
export type Writer = { statements: Statements; stamp: number }
type Client = pg.Pool | pg.PoolClient

/** Whether a statement failed on a foreign key: a put whose session or message is missing. */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === FOREIGN_KEY_VIOLATION
}

/**
 * Applies one step of a batch: a group of rows in one statement, or a write alone. A group that
 * found a row missing which had to exist (see planBatch) wrote nothing and fails as a broken
 * foreign key would: the caller runs the batch again one write at a time to name it.
 */
export async function applyStep(client: Client, writer: Writer, step: Step): Promise<void> {
  if (!("group" in step)) return applyWrite(client, writer, step)
  const { rows } = await client.query<{ ok?: boolean }>(writer.statements.puts(step.group, writer.stamp))
  if (rows[0]?.ok === false)
    throw Object.assign(new Error("A session or message the batch needs is missing"), {
      code: FOREIGN_KEY_VIOLATION,
    })
}

/**
 * Applies one validated write (the `index`th of its batch), storing the JSON text encodeWrites
 * made of its row. Puts of messages and parts rely on the foreign keys to refuse a missing
 * session or message; removes check what they removed.
 */
export async function applyWrite(client: Client, writer: Writer, indexed: IndexedWrite): Promise<void> {
  const { write, index } = indexed
  // Set for every put (see encodeWrites).
  const json = indexed.json!
  const run = (query: Query, args: unknown[]) => client.query(writer.statements.of(query, args))
  switch (write.type) {
    case "session.put": {
      const { id, parentID } = write.info
      if (parentID !== undefined) {
        // The whole chain above the new parent, as this transaction sees it.
        const { rows } = await run("ancestors", [parentID])
        if (rows.length === 0) throw NotFoundError.of("Session", parentID)
        const parents = new Map(
          rows.map((row: { id: string; parent_id: string | null }) => [row.id, row.parent_id]),
        )
        refuseParentCycle(write.info, index, (sessionID) => parents.get(sessionID) ?? undefined)
      }
      await run("putSession", [id, parentID ?? null, json, writer.stamp])
      return
    }
    case "session.remove":
      if ((await run("removeSession", [write.sessionID])).rowCount === 0)
        throw NotFoundError.of("Session", write.sessionID)
      return
    case "message.put":
      await run("putMessage", [write.info.sessionID, write.info.id, json, writer.stamp])
      return
    case "message.remove":
      if ((await run("removeMessage", [write.sessionID, write.messageID])).rowCount === 0)
        await missingMessage(run, write.sessionID, write.messageID)
      return
    case "part.put": {
      const { id, sessionID, messageID } = write.part
      await run("putPart", [sessionID, messageID, id, json, writer.stamp])
      return
    }
    case "part.remove":
      if ((await run("removePart", [write.sessionID, write.messageID, write.partID])).rowCount === 0) {
        if ((await run("hasMessage", [write.sessionID, write.messageID])).rows.length === 0)
          await missingMessage(run, write.sessionID, write.messageID)
        throw NotFoundError.of("Part", write.partID)
      }
      return
    case "value.put":
      await run("putValue", [encodeKey(write.key), json])
      return
    case "value.remove":
      await run("removeValue", [encodeKey(write.key)])
      return
  }
}

/** A foreign key a put broke names what was missing, as the contract says; other errors stay. */
export async function explainFailure(
  error: unknown,
  write: StorageWrite | undefined,
  hasSession: (sessionID: string) => Promise<boolean>,
): Promise<never> {
  if (!isForeignKeyViolation(error) || !write) throw error
  if (write.type === "message.put") throw NotFoundError.of("Session", write.info.sessionID)
  if (write.type === "part.put") {
    const { sessionID, messageID } = write.part
    if (!(await hasSession(sessionID))) throw NotFoundError.of("Session", sessionID)
    throw NotFoundError.of("Message", messageID)
  }
  throw error
}

/** Names the session when it is the session that is missing, as MemoryStorage does. */
async function missingMessage(
  run: (query: Query, args: unknown[]) => Promise<pg.QueryResult>,
  sessionID: string,
  messageID: string,
): Promise<never> {
  if ((await run("hasSession", [sessionID])).rows.length === 0) throw NotFoundError.of("Session", sessionID)
  throw NotFoundError.of("Message", messageID)
}
