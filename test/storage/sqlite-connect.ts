import { RUNTIME_DRIVERS } from "../../src/storage/sqlite/driver-loaders.js"
import type { SqliteDatabase, SqliteDriver } from "../../src/storage/sqlite/index.js"

/**
 * A connection of `driver` to `path`, opened by the loaders SqliteStorage uses, for tests that
 * reach the database behind the adapter's back or hand it an open connection.
 */
export function connect(driver: SqliteDriver, path = ":memory:"): SqliteDatabase {
  const open = driver === "node:sqlite" ? RUNTIME_DRIVERS.nodeSqlite() : RUNTIME_DRIVERS.betterSqlite3()
  if (!open) throw new Error(`${driver} is not available in this runtime`)
  return open(path)
}

/** The first column of the first row (a pragma's answer, a count); rows are objects on either driver. */
export function firstValue(db: SqliteDatabase, sql: string, ...params: unknown[]): unknown {
  const row = db.prepare(sql).get(...params) as Record<string, unknown> | undefined
  return row === undefined ? undefined : Object.values(row)[0]
}

/** The first column of every row. */
export function columnOf(db: SqliteDatabase, sql: string, ...params: unknown[]): unknown[] {
  return db
    .prepare(sql)
    .all(...params)
    .map((row) => Object.values(row as Record<string, unknown>)[0])
}

/**
 * The same connection with every statement reading integers as bigints: better-sqlite3's
 * `defaultSafeIntegers`, node:sqlite's `setReadBigInts` on each statement.
 */
export function readingBigInts(db: SqliteDatabase): SqliteDatabase {
  const better = db as SqliteDatabase & { defaultSafeIntegers?: (on: boolean) => unknown }
  if (typeof better.defaultSafeIntegers === "function") {
    better.defaultSafeIntegers(true)
    return db
  }
  return {
    prepare(sql) {
      const statement = db.prepare(sql) as ReturnType<SqliteDatabase["prepare"]> & {
        setReadBigInts(on: boolean): unknown
      }
      statement.setReadBigInts(true)
      return statement
    },
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  }
}
