import type { WithParts } from "../../message/info.js"
import { createBatchedReads, FailedRead } from "./batched-reads.js"
import { textArray } from "./binary-array.js"
import type { Query } from "./queries.js"

/** A stored row of a table whose rows have an ID: its ID, stamp and JSON text. */
export type Row = { id: string; stamp: string | null; data: string }

type MessageKey = { sessionID: string; messageID: string }

/** What the gathered reads need of their PostgresStorage: its retried statements. */
export type ReadStatements = {
  rows(query: Query, args: unknown[]): Promise<Row[]>
  /** A listing statement's messages (see readMessages). */
  listing(query: Query, args: unknown[]): Promise<WithParts[]>
  /** A listing statement of several sessions' messages, by `keyOf` (see readListings). */
  listings(
    query: Query,
    args: unknown[],
    keyOf: (sessionID: string, messageID: string) => string,
  ): Promise<Map<string, WithParts[] | FailedRead>>
  /** Throws NotFoundError when the session is missing. */
  requireSession(sessionID: string): Promise<void>
}

// IDs are ASCII without spaces (their schemas say so), so a space keeps the two apart.
const messageKey = (sessionID: string, messageID: string) => `${sessionID} ${messageID}`

/**
 * The reads a step makes of every session it runs, gathered across sessions (batched-reads.ts):
 * a session by ID, a message by ID, and a session's newest message (the floor of its next ID).
 * Each answers as its statement alone would, a missing session included.
 */
export function createGatheredReads(statements: ReadStatements) {
  const { rows, listing, listings, requireSession } = statements
  const reads = {
    session: createBatchedReads<string, Row | undefined>({
      idOf: (id) => id,
      one: async (id) => (await rows("getSession", [id]))[0],
      many: async (ids) => new Map((await rows("getSessions", [textArray(ids)])).map((row) => [row.id, row])),
      absent: async () => undefined,
    }),
    message: createBatchedReads<MessageKey, WithParts | undefined>({
      idOf: (key) => messageKey(key.sessionID, key.messageID),
      one: async ({ sessionID, messageID }) => {
        const [message] = await listing("getMessage", [sessionID, messageID])
        if (!message) await requireSession(sessionID)
        return message
      },
      many: async (keys) => {
        const args = [
          textArray(keys.map((key) => key.sessionID)),
          textArray(keys.map((key) => key.messageID)),
        ]
        const found = await listings("getMessages", args, messageKey)
        return new Map(
          [...found].map(([id, answer]) => [id, answer instanceof FailedRead ? answer : answer[0]]),
        )
      },
      absent: async ({ sessionID }) => {
        await requireSession(sessionID)
        return undefined
      },
    }),
    newest: createBatchedReads<string, WithParts[]>({
      idOf: (id) => id,
      one: async (id) => {
        const messages = await listing("listNewestMessages", [id, 1])
        if (messages.length === 0) await requireSession(id)
        return messages
      },
      many: (ids) => listings("listNewestMessageOfSessions", [textArray(ids)], (sessionID) => sessionID),
      absent: async (id) => {
        await requireSession(id)
        return []
      },
    }),
  }
  const all = [reads.session, reads.message, reads.newest]
  return {
    ...reads,
    /** Sends every waiting read now (close() does: see createGathering). */
    sendAll: () => {
      for (const kind of all) kind.sendAll()
    },
    drained: () => Promise.all(all.map((kind) => kind.drained())),
  }
}
