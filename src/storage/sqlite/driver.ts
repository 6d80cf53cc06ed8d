/** A value SQLite can bind to a `?` parameter. */
export type SqliteValue = string | number | bigint | null | Uint8Array

/**
 * A prepared statement, as both better-sqlite3 and `node:sqlite` shape it. The adapter only
 * binds SqliteValues; the parameters are typed `unknown` because better-sqlite3's generic
 * statement types would not match anything narrower.
 */
export interface SqliteStatement {
  run(...params: unknown[]): unknown
  /** The first row, or `undefined` when there is none. */
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
  /** better-sqlite3: rows as arrays of column values (used when present, for long listings). */
  raw?(toggle?: boolean): unknown
  /** node:sqlite (Node 22.16 and later): the same. */
  setReturnArrays?(enabled: boolean): unknown
}

/**
 * The part of a database connection SqliteStorage uses: what a better-sqlite3 `Database` and a
 * `node:sqlite` `DatabaseSync` have in common, so either can be passed in without an adapter.
 */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  exec(sql: string): unknown
  close(): unknown
}

/** Opens a database file (or ":memory:") with one driver. */
export type Open = (path: string) => SqliteDatabase

/**
 * A SQLite driver SqliteStorage can open a path with: the runtime's own `node:sqlite` (Node
 * 22.13 and later, Bun, Deno), or the `better-sqlite3` package.
 */
export type SqliteDriver = "node:sqlite" | "better-sqlite3"

/**
 * Each driver's loader: its opener, `undefined` when the driver is not there (not installed, not
 * in this runtime), or an error thrown when it is there but cannot load (a native build for
 * another Node). A parameter so that tests can pretend.
 */
export type Drivers = { betterSqlite3: () => Open | undefined; nodeSqlite: () => Open | undefined }
