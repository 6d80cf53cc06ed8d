import type { WithParts } from "../../message/info.js"
import type { Logger } from "../../provider/logger.js"
import type { SessionInfo } from "../../schema/session.js"
import type { DataPath } from "../../tool/data-path.js"
import { type CheckedWrite, writeChecked } from "../checked-write.js"
import type { MessageQuery, SessionQuery, Storage, StorageWrite } from "../port.js"
import {
  createWaits,
  type Retrying,
  type RetryPolicy,
  retrying,
  retryPolicy,
  type StorageRetryOptions,
} from "../retry.js"
import { ROW_STAMP } from "../row-stamp.js"
import { decodeValue, encodeWrites, readJsonRow, requireString } from "../rows.js"
import { StorageError } from "../storage-error.js"
import { applyWrite, requireSession } from "./apply-write.js"
import { Connection, closedError } from "./connection.js"
import { SqliteCoordinator } from "./coordinator.js"
import { coordinatorPolicy, type SqliteCoordinatorOptions } from "./coordinator-options.js"
import { databaseFiles } from "./data-paths.js"
import type { SqliteDatabase, SqliteDriver } from "./driver.js"
import { sqliteFault } from "./faults.js"
import { openDatabase, pathOptions } from "./open-database.js"
import { prefixEnd } from "./prefix-end.js"
import { type Decode, type Row, readMessages, type Stamp } from "./read-messages.js"
import { configure } from "./setup.js"
import { SQL } from "./statements.js"
import { createWriteGroups } from "./write-groups.js"

export { PART_PAGE } from "./read-messages.js"

/**
 * The second argument of `new SqliteStorage(path, options)`: how locked calls are retried and
 * whether processes sharing the file coordinate. The constructor throws InvalidInputError,
 * naming the field, for a malformed option.
 */
export type SqliteStorageOptions = {
  /**
   * How a call that finds the database locked by another connection (SQLITE_BUSY, SQLITE_LOCKED)
   * is retried: `maxAttempts` retries after the first attempt, waits doubling from 2 ms up to
   * `maxDelayMs`. Default `{ maxAttempts: 60, maxDelayMs: 100 }`: about 5 s in all.
   */
  retry?: StorageRetryOptions
  /**
   * Whether runtimes of several processes on this file stay out of each other's way (see
   * docs/scaling.md): `storage.coordinator`, which a runtime uses. Default true, with the
   * defaults of SqliteCoordinatorOptions; false for a host sure to be alone with the file. A
   * ":memory:" database has none unless asked: no other process can open it.
   */
  coordinator?: boolean | SqliteCoordinatorOptions
  /**
   * Which driver opens a path: by default the runtime's own `node:sqlite` where it has one
   * (Node 22.13 and later, Bun, Deno), else better-sqlite3. A driver named here that is not
   * installed or cannot load (a better-sqlite3 built for another Node, or under Bun or Deno)
   * gives way to the other one, with one warning. Ignored when an open connection is passed.
   */
  driver?: SqliteDriver
  /**
   * Gets that warning. Default: `process.emitWarning` with the code
   * "AGENTLOOP_SQLITE_DRIVER_FALLBACK" (Node's `--disable-warning` takes it).
   */
  logger?: Logger
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 60, maxDelayMs: 100, firstDelayMs: 2 }

type ValueRow = { key: string; value: string }

/**
 * Durable storage in one SQLite file (WAL mode), through `node:sqlite` or better-sqlite3.
 * Pass a path (opened with the runtime's own `node:sqlite` where it has one, else better-sqlite3:
 * see the `driver` option) or an open connection of either driver; `close()` closes the
 * connection either way. Where no driver is usable, SqliteOpenError says what to install. The schema is created or migrated on
 * construction; a file migrated by a newer agentloop fails with SchemaVersionError.
 *
 * The drivers are synchronous, so every method runs its whole transaction without yielding:
 * calls on one instance never interleave, and the connection is never left mid-transaction.
 * Waiting for another process's lock must not freeze the process, so SQLite does not wait
 * itself (busy_timeout = 0): a call that finds the database locked fails at once and is run
 * again after an asynchronous wait. When even opening finds the file locked, the schema is set
 * up by the first call, which waits.
 *
 * Faults come as StorageError: "busy" once the retries are spent, "full", "io", "corrupt".
 *
 * Every session, message and part row it writes carries the row stamp (see rowStamp): rows
 * with this version's stamp were validated when written and are read back with `JSON.parse`
 * alone; rows without it (another writer's, an older version's) are validated on read.
 */
export class SqliteStorage implements Storage {
  /**
   * One session's run in one process at a time, across the processes on this file; undefined
   * with `coordinator: false`, and for ":memory:" unless asked for.
   */
  readonly coordinator: SqliteCoordinator | undefined
  /**
   * The database file and its `-wal`, `-shm` and `-journal` files, which the runtime keeps the
   * coding tools and their commands away from; none for ":memory:".
   */
  readonly dataPaths: readonly DataPath[]
  /** The driver that opened the path; undefined when the host passed an open connection. */
  readonly driver: SqliteDriver | undefined
  readonly #connection: Connection
  readonly #stamp = ROW_STAMP
  readonly #waits = createWaits()
  readonly #retrying: Retrying
  readonly #decode: Decode = {
    message: (id, stamp, data) => this.#row("message", id, stamp, data),
    part: (id, stamp, data) => this.#row("part", id, stamp, data),
  }
  // A batch that met a lock did not commit (BEGIN IMMEDIATE takes the write lock first, and a
  // failed COMMIT is rolled back), so running it again applies it once.
  readonly #writes = createWriteGroups((batches) =>
    this.#attempt(() =>
      this.#connection.transaction(SQL.beginWrite, () => {
        for (const batch of batches)
          for (const [index, encoded] of batch.entries())
            applyWrite(this.#connection, encoded, index, this.#stamp)
      }),
    ),
  )
  /** The setup that found the database locked when constructed, run (and waited for) by the first call. */
  #setup: (() => Promise<void>) | undefined
  #opening: Promise<void> | undefined

  constructor(pathOrDatabase: string | SqliteDatabase, options: SqliteStorageOptions = {}) {
    const policy = retryPolicy("SqliteStorage", options.retry, DEFAULT_RETRY)
    const open = pathOptions(options)
    const shared = coordinatorPolicy(
      options.coordinator,
      typeof pathOrDatabase === "string" ? pathOrDatabase : undefined,
    )
    this.#retrying = {
      policy,
      classify: sqliteFault,
      waits: this.#waits,
      closed: closedError,
    }
    const opened = typeof pathOrDatabase === "string"
    const { db, driver } = opened
      ? openDatabase(pathOrDatabase, open)
      : { db: pathOrDatabase, driver: undefined }
    this.driver = driver
    this.#connection = new Connection(db)
    this.dataPaths = databaseFiles(db)
    this.coordinator =
      shared &&
      new SqliteCoordinator({
        attempt: (body) => this.#attempt(() => body(this.#connection)),
        policy: shared,
      })
    try {
      configure(db)
    } catch (error) {
      if (sqliteFault(error)?.reason === "busy") {
        this.#setup = () => retrying(() => configure(db), this.#retrying)
        return
      }
      if (opened) db.close()
      const fault = sqliteFault(error)
      if (!fault) throw error
      throw new StorageError({ ...fault, retryable: false, attempts: 1 }, { cause: error })
    }
  }

  async getSession(sessionID: string): Promise<SessionInfo | undefined> {
    requireString("sessionID", sessionID)
    const row = await this.#attempt(() => this.#connection.get<Omit<Row, "id">>(SQL.getSession, sessionID))
    return row ? this.#row("session", sessionID, row.stamp, row.data) : undefined
  }

  async listSessions(query: SessionQuery = {}): Promise<SessionInfo[]> {
    const limit = rowLimit(query.limit)
    const parentID = query.parentID === undefined ? undefined : requireString("parentID", query.parentID)
    const rows = await this.#attempt(() =>
      parentID === undefined
        ? this.#connection.all<Row>(SQL.listSessions, limit)
        : this.#connection.all<Row>(SQL.listChildSessions, parentID, limit),
    )
    return rows.map((row): SessionInfo => this.#row("session", row.id, row.stamp, row.data))
  }

  async getMessage(sessionID: string, messageID: string): Promise<WithParts | undefined> {
    requireString("sessionID", sessionID)
    requireString("messageID", messageID)
    const db = this.#connection
    const found = await this.#read(() => {
      const message = db.get<Row>(SQL.getMessage, sessionID, messageID)
      if (message) return { message, parts: db.all<Row>(SQL.listMessageParts, sessionID, messageID) }
      requireSession(db, sessionID)
      return undefined
    })
    if (!found) return undefined
    const info = this.#row("message", found.message.id, found.message.stamp, found.message.data)
    return { info, parts: found.parts.map((row) => this.#row("part", row.id, row.stamp, row.data)) }
  }

  async listMessages(sessionID: string, query: MessageQuery = {}): Promise<WithParts[]> {
    requireString("sessionID", sessionID)
    const limit = query.limit === undefined ? undefined : rowLimit(query.limit)
    // One read transaction, so a concurrent writer can't split a message from its parts.
    return this.#read(() => readMessages(this.#connection, this.#decode, sessionID, limit))
  }

  async getValue(key: string): Promise<unknown> {
    requireString("key", key)
    const row = await this.#attempt(() => this.#connection.get<{ value: string }>(SQL.getValue, key))
    return row ? decodeValue(key, row.value) : undefined
  }

  async listValues(prefix: string): Promise<{ key: string; value: unknown }[]> {
    const end = prefixEnd(requireString("prefix", prefix))
    const rows = await this.#attempt(() =>
      end === undefined
        ? this.#connection.all<ValueRow>(SQL.listValues, prefix)
        : this.#connection.all<ValueRow>(SQL.listValuesBelow, prefix, end),
    )
    // SQLite orders text by UTF-8 bytes, JavaScript (and MemoryStorage) by UTF-16 code units;
    // they differ only for keys mixing U+E000..U+FFFF with astral characters. Nearly sorted
    // input makes this re-sort linear.
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    return rows.map((row) => ({ key: row.key, value: decodeValue(row.key, row.value) }))
  }

  /**
   * Committed in one transaction with the other batches written close to it (see "SqliteStorage"
   * in docs/storage.md); resolves once committed.
   */
  async write(writes: readonly StorageWrite[]): Promise<void> {
    await this.#writes.add(encodeWrites(writes))
  }

  /** @internal `write` for the runtime's own batches, whose checked rows skip their schema parse. */
  async [writeChecked](writes: readonly CheckedWrite[]): Promise<void> {
    const flags = writes.map((entry) => entry.checked)
    await this.#writes.add(
      encodeWrites(
        writes.map((entry) => entry.write),
        flags,
      ),
    )
  }

  async close(): Promise<void> {
    await this.#writes.sendAll()
    await this.coordinator?.close()
    this.#waits.close()
    this.#connection.close()
  }

  /** Runs several reads on one snapshot, as one attempt. */
  #read<T>(body: () => T): T | Promise<T> {
    return this.#attempt(() => this.#connection.transaction(SQL.begin, body))
  }

  /**
   * Runs `body` at once (the common case costs no promise of its own), and again after an
   * asynchronous wait while it fails on another connection's lock, up to the retry bound.
   */
  #attempt<T>(body: () => T): T | Promise<T> {
    if (this.#setup) return this.#ready().then(() => this.#attempt(body))
    try {
      return body()
    } catch (error) {
      return retrying(body, this.#retrying, { error })
    }
  }

  /** The setup deferred by the constructor, shared by the calls waiting for it; tried anew after a failure. */
  #ready(): Promise<void> {
    const setup = this.#setup!
    this.#opening ??= setup().then(
      () => {
        this.#setup = undefined
      },
      (error: unknown) => {
        this.#opening = undefined
        throw error
      },
    )
    return this.#opening
  }

  /** A stored row, validated unless it carries this version's stamp (either sign: see SQL). */
  #row<K extends "session" | "message" | "part">(kind: K, id: string, stamp: Stamp, data: string) {
    const value = typeof stamp === "bigint" ? Number(stamp) : stamp
    return readJsonRow(kind, id, data, value === this.#stamp || value === -this.#stamp)
  }
}

/** SQLite's LIMIT for a query limit: -1 means none; like Array.slice, fractions truncate. */
function rowLimit(limit: number | undefined): number {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return -1
  return Math.max(0, Math.trunc(limit) || 0)
}
