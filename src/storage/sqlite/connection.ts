import { StorageClosedError } from "../storage-closed-error.js"
import type { SqliteDatabase, SqliteStatement, SqliteValue } from "./driver.js"
import { rollback } from "./migrations.js"
import { type NativeTransactions, nativeTransactions } from "./native-transactions.js"
import { SQL, type Sql } from "./statements.js"

type ArrayStatement = { all(...params: SqliteValue[]): unknown[] }

/**
 * One SQLite connection and its prepared statements. Everything here is synchronous, so a
 * transaction runs whole between two turns of the event loop: calls never interleave, and the
 * connection is never left inside a transaction across an `await`.
 */
export class Connection {
  readonly db: SqliteDatabase
  readonly #statements = new Map<Sql, SqliteStatement>()
  readonly #arrayStatements = new Map<Sql, ArrayStatement>()
  /** The database's own transactions (a Durable Object's), looked up once: undefined for SQLite drivers. */
  readonly #native: NativeTransactions | undefined
  #closed = false

  constructor(db: SqliteDatabase) {
    this.db = db
    this.#native = nativeTransactions(db)
  }

  run(sql: Sql, ...params: SqliteValue[]): void {
    this.#statement(sql).run(...params)
  }

  get<T>(sql: Sql, ...params: SqliteValue[]): T | undefined {
    return this.#statement(sql).get(...params) as T | undefined
  }

  all<T>(sql: Sql, ...params: SqliteValue[]): T[] {
    return this.#statement(sql).all(...params) as T[]
  }

  /**
   * Runs a query whose rows come back as arrays of column values, which the drivers build
   * faster than objects (bench/README.md, Storage): better-sqlite3's raw mode, node:sqlite's
   * setReturnArrays, else objects turned into arrays. Such a statement is prepared for this use only.
   */
  arrays<T extends unknown[]>(sql: Sql, ...params: SqliteValue[]): T[] {
    this.#assertOpen()
    let statement = this.#arrayStatements.get(sql)
    if (!statement) {
      const prepared = this.db.prepare(sql)
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

  /**
   * Runs `body` in a transaction opened with `begin`, committed when it returns and rolled back
   * when anything throws: a busy BEGIN or COMMIT included, so that a retry starts afresh.
   */
  transaction<T>(begin: Sql, body: () => T): T {
    if (this.#native) return this.#native.transactionSync(body)
    try {
      this.run(begin)
      const result = body()
      this.run(SQL.commit)
      return result
    } catch (error) {
      rollback(this.db)
      throw error
    }
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#statements.clear()
    this.#arrayStatements.clear()
    this.db.close()
  }

  #statement(sql: Sql): SqliteStatement {
    this.#assertOpen()
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError()
  }
}

export function closedError(): StorageClosedError {
  return new StorageClosedError({
    message: "SqliteStorage is closed: create a new one to use the database again",
  })
}
