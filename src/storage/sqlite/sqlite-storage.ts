import { NotFoundError } from "../../error/not-found.js"
import type { WithParts } from "../../message/info.js"
import type { Info as SessionInfo } from "../../session/info.js"
import type { MessageQuery, SessionQuery, Storage, StorageWrite } from "../port.js"
import {
  decodeValue,
  readJsonRow,
  refuseParentCycle,
  requireString,
  rowStamp,
  validateWrites,
} from "../rows.js"
import { StorageClosedError } from "../storage-closed-error.js"
import { openDatabase, type SqliteDatabase, type SqliteStatement, type SqliteValue } from "./driver.js"
import { migrate, rollback } from "./migrations.js"
import { SQL, type Sql } from "./statements.js"

/** A row's stamp as a driver returns it: a bigint when the connection reads safe integers. */
type Stamp = number | bigint | null
type Row = { id: string; stamp: Stamp; data: string }
/** A part row of a session listing, read as an array (see #arrays): the columns in select order. */
type PartTuple = [messageID: string, id: string, stamp: Stamp, data: string]
type ValueRow = { key: string; value: string }

/**
 * How many parts a listing reads per query. Parsing each page before reading the next lets the
 * JSON text of a long session die young, where reading all of it first (14 MiB for 20,000
 * parts) had the garbage collector copy it around: about 70 instead of 90 ms for that load
 * (bench/README.md, Storage).
 */
export const PART_PAGE = 1000

/**
 * Durable storage in one SQLite file (WAL mode), through better-sqlite3 or `node:sqlite`.
 * Pass a path (opened with better-sqlite3, else `node:sqlite`) or an open connection of either
 * driver; `close()` closes the connection either way. The schema is created or migrated on
 * construction; a file migrated by a newer agentloop fails with SchemaVersionError.
 *
 * The drivers are synchronous, so every method runs its whole transaction without yielding:
 * calls on one instance never interleave, and the connection is never left mid-transaction.
 *
 * Every session, message and part row it writes carries the row stamp (see rowStamp): rows
 * with this version's stamp were validated when written and are read back with `JSON.parse`
 * alone; rows without it (another writer's, an older version's) are validated on read.
 */
export class SqliteStorage implements Storage {
  readonly #db: SqliteDatabase
  readonly #statements = new Map<Sql, SqliteStatement>()
  readonly #arrayStatements = new Map<Sql, { all(...params: SqliteValue[]): unknown[] }>()
  readonly #stamp = rowStamp()
  #closed = false

  constructor(pathOrDatabase: string | SqliteDatabase) {
    const opened = typeof pathOrDatabase === "string"
    this.#db = opened ? openDatabase(pathOrDatabase) : pathOrDatabase
    try {
      // busy_timeout first, so that switching to WAL waits for other connections' locks.
      this.#db.exec("PRAGMA busy_timeout = 5000")
      this.#db.exec("PRAGMA journal_mode = WAL")
      this.#db.exec("PRAGMA synchronous = NORMAL")
      this.#db.exec("PRAGMA foreign_keys = ON")
      migrate(this.#db)
    } catch (error) {
      if (opened) this.#db.close()
      throw error
    }
  }

  async getSession(sessionID: string): Promise<SessionInfo | undefined> {
    const row = this.#get<Omit<Row, "id">>(SQL.getSession, requireString("sessionID", sessionID))
    return row ? this.#decode("session", sessionID, row.stamp, row.data) : undefined
  }

  async listSessions(query: SessionQuery = {}): Promise<SessionInfo[]> {
    const limit = rowLimit(query.limit)
    const rows =
      query.parentID === undefined
        ? this.#all<Row>(SQL.listSessions, limit)
        : this.#all<Row>(SQL.listChildSessions, requireString("parentID", query.parentID), limit)
    return rows.map((row): SessionInfo => this.#decode("session", row.id, row.stamp, row.data))
  }

  async getMessage(sessionID: string, messageID: string): Promise<WithParts | undefined> {
    requireString("sessionID", sessionID)
    requireString("messageID", messageID)
    const found = this.#read(() => {
      const message = this.#get<Row>(SQL.getMessage, sessionID, messageID)
      if (message) return { message, parts: this.#all<Row>(SQL.listMessageParts, sessionID, messageID) }
      this.#requireSession(sessionID)
      return undefined
    })
    if (!found) return undefined
    const info = this.#decode("message", found.message.id, found.message.stamp, found.message.data)
    return { info, parts: found.parts.map((row) => this.#decode("part", row.id, row.stamp, row.data)) }
  }

  async listMessages(sessionID: string, query: MessageQuery = {}): Promise<WithParts[]> {
    requireString("sessionID", sessionID)
    // One read transaction: the messages, then their parts page by page, each page decoded and
    // attached to its message (parts come in message order) before the next is read.
    return this.#read(() => {
      const rows =
        query.limit === undefined
          ? this.#all<Row>(SQL.listMessages, sessionID)
          : this.#all<Row>(SQL.listNewestMessages, sessionID, rowLimit(query.limit)).reverse()
      // A session always exists when it has messages, so only an empty listing pays for the check.
      if (rows.length === 0) {
        this.#requireSession(sessionID)
        return []
      }
      const byID = new Map<string, WithParts>()
      const messages = rows.map((row) => {
        const message: WithParts = { info: this.#decode("message", row.id, row.stamp, row.data), parts: [] }
        byID.set(row.id, message)
        return message
      })
      let page =
        query.limit === undefined
          ? this.#arrays<PartTuple>(SQL.listSessionParts, sessionID, PART_PAGE)
          : this.#arrays<PartTuple>(SQL.listSessionPartsFrom, sessionID, rows[0]!.id, PART_PAGE)
      for (;;) {
        for (const [messageID, id, stamp, data] of page)
          byID.get(messageID)?.parts.push(this.#decode("part", id, stamp, data))
        if (page.length < PART_PAGE) return messages
        const [messageID, id] = page[page.length - 1]!
        page = this.#arrays<PartTuple>(SQL.listSessionPartsAfter, sessionID, messageID, id, PART_PAGE)
      }
    })
  }

  async getValue(key: string): Promise<unknown> {
    const row = this.#get<{ value: string }>(SQL.getValue, requireString("key", key))
    return row ? decodeValue(key, row.value) : undefined
  }

  async listValues(prefix: string): Promise<{ key: string; value: unknown }[]> {
    const end = prefixEnd(requireString("prefix", prefix))
    const rows =
      end === undefined
        ? this.#all<ValueRow>(SQL.listValues, prefix)
        : this.#all<ValueRow>(SQL.listValuesBelow, prefix, end)
    // SQLite orders text by UTF-8 bytes, JavaScript (and MemoryStorage) by UTF-16 code units;
    // they differ only for keys mixing U+E000..U+FFFF with astral characters. Nearly sorted
    // input makes this re-sort linear.
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    return rows.map((row) => ({ key: row.key, value: decodeValue(row.key, row.value) }))
  }

  async write(writes: readonly StorageWrite[]): Promise<void> {
    const valid = validateWrites(writes)
    this.#run(SQL.beginWrite)
    try {
      for (const [index, write] of valid.entries()) this.#apply(write, index)
      this.#run(SQL.commit)
    } catch (error) {
      rollback(this.#db)
      throw error
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#statements.clear()
    this.#arrayStatements.clear()
    this.#db.close()
  }

  #apply(write: StorageWrite, index: number): void {
    switch (write.type) {
      case "session.put": {
        const { id, parentID } = write.info
        if (parentID !== undefined) this.#requireSession(parentID)
        refuseParentCycle(
          write.info,
          index,
          (sessionID) =>
            this.#get<{ parent_id: string | null }>(SQL.getSessionParent, sessionID)?.parent_id ?? undefined,
        )
        this.#run(SQL.putSession, id, parentID ?? null, JSON.stringify(write.info), this.#stamp)
        return
      }
      case "session.remove":
        // Foreign keys cascade to its messages, their parts, and its descendant sessions.
        this.#requireSession(write.sessionID)
        this.#run(SQL.removeSession, write.sessionID)
        return
      case "message.put":
        this.#requireSession(write.info.sessionID)
        this.#run(
          SQL.putMessage,
          write.info.sessionID,
          write.info.id,
          JSON.stringify(write.info),
          this.#stamp,
        )
        return
      case "message.remove":
        this.#requireMessage(write.sessionID, write.messageID)
        this.#run(SQL.removeMessage, write.sessionID, write.messageID)
        return
      case "part.put": {
        const { id, sessionID, messageID } = write.part
        this.#requireMessage(sessionID, messageID)
        this.#run(SQL.putPart, sessionID, messageID, id, JSON.stringify(write.part), this.#stamp)
        return
      }
      case "part.remove":
        this.#requireMessage(write.sessionID, write.messageID)
        if (!this.#get(SQL.hasPart, write.sessionID, write.messageID, write.partID)) {
          throw NotFoundError.of("Part", write.partID)
        }
        this.#run(SQL.removePart, write.sessionID, write.messageID, write.partID)
        return
      case "value.put":
        this.#run(SQL.putValue, write.key, JSON.stringify(write.value))
        return
      case "value.remove":
        this.#run(SQL.removeValue, write.key)
        return
    }
  }

  /** A stored row, validated unless it carries this version's stamp (either sign: see SQL). */
  #decode<K extends "session" | "message" | "part">(kind: K, id: string, stamp: Stamp, data: string) {
    const value = typeof stamp === "bigint" ? Number(stamp) : stamp
    return readJsonRow(kind, id, data, value === this.#stamp || value === -this.#stamp)
  }

  #requireSession(sessionID: string): void {
    if (!this.#get(SQL.hasSession, sessionID)) throw NotFoundError.of("Session", sessionID)
  }

  #requireMessage(sessionID: string, messageID: string): void {
    if (this.#get(SQL.hasMessage, sessionID, messageID)) return
    // Name the session when it is the session that is missing, as MemoryStorage does.
    this.#requireSession(sessionID)
    throw NotFoundError.of("Message", messageID)
  }

  /** Runs several reads on one snapshot, so a concurrent writer can't split a message from its parts. */
  #read<T>(body: () => T): T {
    this.#run(SQL.begin)
    try {
      const result = body()
      this.#run(SQL.commit)
      return result
    } catch (error) {
      rollback(this.#db)
      throw error
    }
  }

  #statement(sql: Sql): SqliteStatement {
    this.#assertOpen()
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /**
   * Runs a query whose rows come back as arrays of column values, which the drivers build
   * faster than objects (about 6 ms less for 20,000 parts): better-sqlite3's raw mode, node:sqlite's
   * setReturnArrays, else objects turned into arrays. Such a statement is prepared for this use only.
   */
  #arrays<T extends unknown[]>(sql: Sql, ...params: SqliteValue[]): T[] {
    this.#assertOpen()
    let statement = this.#arrayStatements.get(sql)
    if (!statement) {
      const prepared = this.#db.prepare(sql)
      if (typeof prepared.raw === "function") prepared.raw(true)
      else if (typeof prepared.setReturnArrays === "function") prepared.setReturnArrays(true)
      else {
        const objects = prepared
        statement = { all: (...values) => objects.all(...values).map((row) => Object.values(row as object)) }
      }
      statement ??= prepared
      this.#arrayStatements.set(sql, statement)
    }
    return statement.all(...params) as T[]
  }

  #assertOpen(): void {
    if (this.#closed)
      throw new StorageClosedError({
        message: "SqliteStorage is closed: create a new one to use the database again",
      })
  }

  #run(sql: Sql, ...params: SqliteValue[]): void {
    this.#statement(sql).run(...params)
  }

  #get<T>(sql: Sql, ...params: SqliteValue[]): T | undefined {
    return this.#statement(sql).get(...params) as T | undefined
  }

  #all<T>(sql: Sql, ...params: SqliteValue[]): T[] {
    return this.#statement(sql).all(...params) as T[]
  }
}

/** SQLite's LIMIT for a query limit: -1 means none; like Array.slice, fractions truncate. */
function rowLimit(limit: number | undefined): number {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return -1
  return Math.max(0, Math.trunc(limit) || 0)
}

/**
 * The smallest string above every string starting with `prefix`, so a prefix listing is an
 * index range: bump the last code point (SQLite compares UTF-8 bytes, which order as code
 * points do). Undefined when no such string exists (empty prefix, or only U+10FFFF).
 */
function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix]
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!
    if (last < 0x10ffff) {
      // Skip the surrogate range, which is not a valid code point on its own.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1
      return points.join("") + String.fromCodePoint(next)
    }
  }
  return undefined
}
