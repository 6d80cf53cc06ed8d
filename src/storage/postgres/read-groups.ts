import type { WithParts } from "../../message/info.js"
import { createGrouping, type Pending, sendGroup } from "../grouping.js"
import { textArray } from "./binary-array.js"
import { STALL_MS } from "./options.js"
import type { Query } from "./queries.js"

/** The most reads one statement answers. */
export const MAX_GROUP_READS = 256

/** The answer of a read whose part of a shared statement failed (a row that did not decode). */
export class FailedRead {
  constructor(readonly error: unknown) {}
}

/** A stored row of a table whose rows have an ID: its ID, stamp and JSON text. */
export type Row = { id: string; stamp: string | null; data: string }

type MessageKey = { sessionID: string; messageID: string }

type Waiting<K, R> = Pending<R> & { key: K; id: string }

/**
 * Reads of one kind sent together (a group, see grouping.ts): a read that goes by itself runs
 * `one`; the reads that wait behind the same statement run `many` with their keys, each key
 * once (a read of a key already in the group waits for the next). `idOf` names a key. A key
 * `many` found nothing for is answered by `absent` (which may tell a missing session from an
 * empty answer); one it answered with a FailedRead fails alone. A statement that fails on a
 * read's account runs each read again alone; a fault fails them all (sendGroup).
 */
export function createReadGroup<K, R>(options: {
  idOf: (key: K) => string
  one: (key: K) => Promise<R>
  many: (keys: K[]) => Promise<Map<string, R | FailedRead>>
  absent: (key: K) => Promise<R>
}) {
  const { idOf, one, many, absent } = options
  const grouping = createGrouping<Waiting<K, R>>({
    flush: { when: "behind", stallMs: STALL_MS },
    take: (waiting) => {
      const ids = new Set<string>()
      let count = 0
      while (count < waiting.length && count < MAX_GROUP_READS && !ids.has(waiting[count]!.id))
        ids.add(waiting[count++]!.id)
      return count
    },
    send: (group) =>
      sendGroup<Waiting<K, R>, R, Map<string, R | FailedRead>>(group, {
        merged: (reads) => many(reads.map((read) => read.key)),
        alone: (read) => one(read.key),
        answer: (read, found) => {
          const result = found.get(read.id)
          if (result instanceof FailedRead) throw result.error
          return result !== undefined ? result : absent(read.key)
        },
      }),
  })
  return {
    read(key: K): Promise<R> {
      return new Promise((resolve, reject) => grouping.add({ key, id: idOf(key), resolve, reject }))
    },
    sendAll: grouping.sendAll,
    drained: grouping.drained,
  }
}

/** What the read groups need of their PostgresStorage: its retried statements. */
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
 * The reads a step makes of every session it runs, grouped across sessions (createReadGroup):
 * a session by ID, a message by ID, and a session's newest message (the floor of its next ID).
 * Each answers as its statement alone would, a missing session included.
 */
export function createReadGroups(statements: ReadStatements) {
  const { rows, listing, listings, requireSession } = statements
  const reads = {
    session: createReadGroup<string, Row | undefined>({
      idOf: (id) => id,
      one: async (id) => (await rows("getSession", [id]))[0],
      many: async (ids) => new Map((await rows("getSessions", [textArray(ids)])).map((row) => [row.id, row])),
      absent: async () => undefined,
    }),
    message: createReadGroup<MessageKey, WithParts | undefined>({
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
    newest: createReadGroup<string, WithParts[]>({
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
    /** Sends every waiting read now (close() does). */
    sendAll: () => Promise.all(all.map((kind) => kind.sendAll())),
    drained: () => Promise.all(all.map((kind) => kind.drained())),
  }
}
