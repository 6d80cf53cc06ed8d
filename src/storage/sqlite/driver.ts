import { createRequire } from "node:module"
import { SqliteOpenError } from "./storage-errors.js"

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

type Open = (path: string) => SqliteDatabase

/**
 * A SQLite driver SqliteStorage can open a path with: the runtime's own `node:sqlite` (Node
 * 22.13 and later, Bun, Deno), or the `better-sqlite3` package.
 */
export type SqliteDriver = "node:sqlite" | "better-sqlite3"

/** Each driver's opener, or undefined when it is not available; a parameter so tests can pretend. */
export type Drivers = { betterSqlite3: () => Open | undefined; nodeSqlite: () => Open | undefined }

const DEFAULT_DRIVERS: Drivers = { betterSqlite3: loadBetterSqlite3, nodeSqlite: loadNodeSqlite }

/** An open database and the driver that opened it. */
export type Opened = { db: SqliteDatabase; driver: SqliteDriver }

/**
 * Opens a database file (or ":memory:") with the driver asked for, else the runtime's own
 * `node:sqlite`, else better-sqlite3. The driver is loaded here, on demand, so that importing
 * this subpath never requires an optional peer dependency the host may not have installed.
 */
export function openDatabase(
  path: string,
  driver?: SqliteDriver,
  drivers: Drivers = DEFAULT_DRIVERS,
): Opened {
  const order: SqliteDriver[] =
    driver === "better-sqlite3" ? ["better-sqlite3", "node:sqlite"] : ["node:sqlite", "better-sqlite3"]
  for (const name of order) {
    const open = name === "node:sqlite" ? drivers.nodeSqlite() : drivers.betterSqlite3()
    if (open) return { db: openWith(open, path), driver: name }
  }
  throw new SqliteOpenError({
    path,
    message:
      "SqliteStorage needs a SQLite driver to open a path: run on a Node version with node:sqlite (22.13 or later), " +
      "install better-sqlite3 (npm install better-sqlite3), or pass an open database instead of a path",
  })
}

function openWith(open: Open, path: string): SqliteDatabase {
  try {
    return open(path)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new SqliteOpenError(
      { path, message: `Cannot open the SQLite database at ${JSON.stringify(path)}: ${reason}` },
      { cause: error },
    )
  }
}

function loadBetterSqlite3(): Open | undefined {
  const require = createRequire(import.meta.url)
  let Database: new (path: string, options?: { nativeBinding?: string }) => SqliteDatabase
  try {
    Database = require("better-sqlite3")
  } catch (error) {
    // Only "not installed" means fall back; a broken install should say what is broken.
    const code = (error as { code?: unknown } | null)?.code
    if (code === "MODULE_NOT_FOUND" && String((error as Error).message).includes("'better-sqlite3'")) {
      return undefined
    }
    throw error
  }
  const binding = builtAddon(require)
  return (path) => new Database(path, binding === undefined ? {} : { nativeBinding: binding })
}

/**
 * The addon where `npm install` builds it. Named, better-sqlite3 loads it at once; unnamed, it
 * asks the `bindings` package, which searches a dozen places for it, 2 to 10 ms of a process's
 * first open. Any other layout (a prebuilt binary elsewhere) is left to that search.
 */
function builtAddon(require: NodeJS.Require): string | undefined {
  try {
    return require.resolve("better-sqlite3/build/Release/better_sqlite3.node")
  } catch {
    return undefined
  }
}

function loadNodeSqlite(): Open | undefined {
  // getBuiltinModule is missing before Node 20.16, node:sqlite before Node 22.5.
  const nodeSqlite = process.getBuiltinModule?.("node:sqlite") as
    | { DatabaseSync: new (path: string) => SqliteDatabase }
    | undefined
  return nodeSqlite && ((path) => new nodeSqlite.DatabaseSync(path))
}
