import type { Coordinator } from "../coordination/port.js"
import type { MessageInfo, WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import type { SessionInfo } from "../schema/session.js"
import type { DataPath } from "../tool/data-path.js"

/**
 * One change in a `Storage.write` batch. Puts upsert by ID and keep the row's children: putting
 * a message again keeps its parts, putting a session again keeps its messages. Message IDs are
 * unique within their session and part IDs within their message. Removing a session removes
 * its messages, their parts, and all its descendant sessions. Removing a message removes its
 * parts. Values must be JSON (no undefined, functions, bigints or NaN).
 */
export type StorageWrite =
  | { type: "session.put"; info: SessionInfo }
  | { type: "session.remove"; sessionID: string }
  | { type: "message.put"; info: MessageInfo }
  | { type: "message.remove"; sessionID: string; messageID: string }
  | { type: "part.put"; part: Part }
  | { type: "part.remove"; sessionID: string; messageID: string; partID: string }
  | { type: "value.put"; key: string; value: unknown }
  | { type: "value.remove"; key: string }

/** What `Storage.listSessions` filters by: a parent, and at most `limit` sessions, newest first. */
export type SessionQuery = {
  /** Only the direct children of this session. */
  parentID?: string
  /** At most this many (a positive integer), newest first. */
  limit?: number
}

/** What `Storage.listMessages` filters by: only the newest `limit` messages. */
export type MessageQuery = {
  /** Only the newest `limit` messages (a positive integer; still returned oldest first). */
  limit?: number
}

/**
 * Where sessions, messages, parts and small side values live. The contract, checked by
 * `storageConformance` from `agentloop-sdk/testing`:
 *
 * - `write` is atomic: every change of the batch lands, in order, or none does.
 * - A write that refers to a session or message that does not exist (a message whose session
 *   is missing, a part whose message is missing, a remove of something absent) fails with
 *   `NotFoundError` naming that ID, and writes nothing. Removing an absent value is a no-op.
 * - A row that does not match its schema, written or read, fails with `InvalidInputError`
 *   (on write) or `CorruptRowError` (on read) naming the row, never a later crash. An adapter
 *   may skip the read check for rows it can tell its own write path validated (MemoryStorage's
 *   own texts; SQLite rows carrying the current row stamp, see `rowStamp`); a row written or
 *   changed by anything else is checked.
 * - A malformed call fails with `InvalidInputError` and writes nothing: a batch that is not an
 *   array, a write of unknown `type`, a key or ID (of a write or a read) that is not a string, a
 *   row or value JSON cannot encode (a BigInt, a circular reference).
 * - A `session.put` whose parent chain leads back to the session itself (also through earlier
 *   writes of the same batch) fails with `InvalidInputError`, so walks up or down parent links
 *   always end.
 * - Sessions list newest first (their IDs are descending); messages and parts oldest first
 *   (ascending IDs). Parts are stored apart from their message, so changing one part never
 *   touches another, even when writes to one message interleave.
 * - Returned objects belong to the caller: mutating them never changes what is stored.
 * - A fault below the port (another connection's lock, a lost connection, a full disk, an I/O
 *   error, a damaged file, use after a `close()` that ended the storage) fails with
 *   `StorageError` naming its reason.
 *   Transient ones (busy, connection) are retried inside the adapter within a bound, and a
 *   retried write lands once; then they fail with `retryable: true`. Putting the same rows again
 *   leaves what the first put left.
 */
export interface Storage {
  getSession(sessionID: string): Promise<SessionInfo | undefined>
  listSessions(query?: SessionQuery): Promise<SessionInfo[]>
  /** NotFoundError if the session does not exist. */
  getMessage(sessionID: string, messageID: string): Promise<WithParts | undefined>
  /** A session's messages with their parts in one call. NotFoundError if the session does not exist. */
  listMessages(sessionID: string, query?: MessageQuery): Promise<WithParts[]>
  getValue(key: string): Promise<unknown>
  /** Values whose key starts with `prefix`, in JavaScript string order of their keys. */
  listValues(prefix: string): Promise<{ key: string; value: unknown }[]>
  write(writes: readonly StorageWrite[]): Promise<void>
  close(): Promise<void>
  /**
   * For storage that several processes share (PostgresStorage, SqliteStorage): what keeps
   * their runtimes apart. A runtime uses it unless given its own `coordinator`.
   */
  readonly coordinator?: Coordinator
  /**
   * Where this storage keeps its data on the host (SqliteStorage: the database file and its
   * `-wal`, `-shm` and `-journal` files). The runtime keeps the coding tools and their commands
   * away from them (see `DataPath`); none when absent.
   */
  readonly dataPaths?: readonly DataPath[]
}
