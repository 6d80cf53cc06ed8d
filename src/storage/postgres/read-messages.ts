import pg from "pg"
import type { WithParts } from "../../message/info.js"
import type { Part } from "../../message/part.js"
import { FailedRead } from "./read-groups.js"
import { checkout } from "./transaction.js"

/** A listing row (see `listed` in queries.ts): 0 for a message, 1 for a part of `messageID`. */
type ListedRow = [kind: number, messageID: string, id: string, stamp: string | null, data: string]
/** A row of a listing of several sessions (see `listedOf` in queries.ts): the same, after its session. */
type SessionListedRow = [
  kind: number,
  sessionID: string,
  messageID: string,
  id: string,
  stamp: string | null,
  data: string,
]

export type Decode = {
  message(id: string, stamp: string | null, data: string): WithParts["info"]
  part(id: string, stamp: string | null, data: string): Part
}

/**
 * Messages with their parts from one listing statement, oldest first. The statement has no
 * ORDER BY: sorting 14 MiB of rows made the server spill to disk and hold every row back until
 * the last was sorted. Rows are decoded as they arrive (the text of each dies young, and the
 * decoding overlaps the transfer), then put in order here: they come back mostly in the order
 * they were written, which the sort checks before doing anything.
 */
export async function readMessages(pool: pg.Pool, statement: pg.QueryConfig, decode: Decode) {
  const assembly = assemble(decode)
  await streamRows<ListedRow>(pool, statement, (row) => assembly.add(row))
  return assembly.messages()
}

/**
 * The messages of several listings from one statement whose rows name their session first
 * (see `listedOf` in queries.ts), by `keyOf(sessionID, messageID)`: the session's newest
 * message, or one message of it. Each listing is put in order as readMessages does. A listing
 * with a row that fails to decode (CorruptRowError) is a FailedRead: the others still answer.
 */
export async function readListings(
  pool: pg.Pool,
  statement: pg.QueryConfig,
  decode: Decode,
  keyOf: (sessionID: string, messageID: string) => string,
): Promise<Map<string, WithParts[] | FailedRead>> {
  const assemblies = new Map<string, ReturnType<typeof assemble> | FailedRead>()
  await streamRows<SessionListedRow>(pool, statement, (row) => {
    const [kind, sessionID, messageID, id, stamp, data] = row
    const key = keyOf(sessionID, messageID)
    let assembly = assemblies.get(key)
    if (assembly instanceof FailedRead) return
    if (!assembly) {
      assembly = assemble(decode)
      assemblies.set(key, assembly)
    }
    try {
      assembly.add([kind, messageID, id, stamp, data])
    } catch (error) {
      assemblies.set(key, new FailedRead(error))
    }
  })
  return new Map(
    [...assemblies].map(([key, assembly]) => [
      key,
      assembly instanceof FailedRead ? assembly : assembly.messages(),
    ]),
  )
}

/**
 * Runs `statement` on a connection of its own, handing each row (an array of its columns) to
 * `onRow` as it arrives. A row `onRow` fails on fails the read once every row has come, so that
 * the connection stays usable (throwing from the row event would break it).
 */
async function streamRows<Row>(pool: pg.Pool, statement: pg.QueryConfig, onRow: (row: Row) => void) {
  let failure: { error: unknown } | undefined
  const config: pg.QueryArrayConfig = { ...statement, rowMode: "array" }
  const { client, done } = await checkout(pool)
  try {
    await new Promise<void>((resolve, reject) => {
      const query = client.query(new pg.Query(config))
      query.on("row", (row: Row) => {
        if (failure) return
        try {
          onRow(row)
        } catch (error) {
          failure = { error }
        }
      })
      query.on("error", reject)
      query.on("end", () => resolve())
    })
  } catch (error) {
    done(error)
    throw error
  }
  done()
  if (failure) throw failure.error
}

/** Messages built from listing rows that come in any order. */
function assemble(decode: Decode) {
  const messages: WithParts[] = []
  const byID = new Map<string, WithParts>()
  const waiting: [messageID: string, part: Part][] = []
  return {
    add([kind, messageID, id, stamp, data]: ListedRow): void {
      if (kind === 0) {
        const message: WithParts = { info: decode.message(id, stamp, data), parts: [] }
        messages.push(message)
        byID.set(id, message)
        return
      }
      const part = decode.part(id, stamp, data)
      const message = byID.get(messageID)
      if (message) message.parts.push(part)
      else waiting.push([messageID, part])
    },
    messages(): WithParts[] {
      // Parts whose message came later; the foreign key keeps every part's message in the listing.
      for (const [messageID, part] of waiting) byID.get(messageID)?.parts.push(part)
      inOrder(messages, (message) => message.info.id)
      for (const message of messages) inOrder(message.parts, (part) => part.id)
      return messages
    },
  }
}

/**
 * Sorts by ID, unless already sorted (the usual case: a check of each neighbour). IDs are ASCII
 * (their schemas say so, and every row read passed them), so `<` orders them as the tables'
 * `COLLATE "C"` does.
 */
function inOrder<T>(items: T[], id: (item: T) => string): void {
  for (let index = 1; index < items.length; index++)
    if (id(items[index - 1]!) > id(items[index]!)) {
      items.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))
      return
    }
}
