import { createRequire } from "node:module"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"

const ALL: readonly SqliteDriver[] = ["node:sqlite", "better-sqlite3"]

/**
 * The SQLite drivers the SQLite suites run on: each one this runtime can load. CI names the
 * drivers that must be there in AGENTLOOP_SQLITE_DRIVERS (comma-separated), so that a driver
 * missing there fails the suites instead of quietly dropping out of them.
 */
export function sqliteDrivers(): SqliteDriver[] {
  const required = process.env.AGENTLOOP_SQLITE_DRIVERS
  if (!required) return ALL.filter((driver) => loadError(driver) === undefined)
  return required.split(",").map((name) => {
    const driver = ALL.find((known) => known === name.trim())
    if (!driver) throw new Error(`AGENTLOOP_SQLITE_DRIVERS names an unknown driver: ${name}`)
    const error = loadError(driver)
    if (error)
      throw new Error(`AGENTLOOP_SQLITE_DRIVERS requires ${driver}, which does not load here: ${error}`)
    return driver
  })
}

function loadError(driver: SqliteDriver): string | undefined {
  try {
    if (driver === "node:sqlite") {
      const nodeSqlite = process.getBuiltinModule?.("node:sqlite") as
        | { DatabaseSync: new (path: string) => { close(): void } }
        | undefined
      if (!nodeSqlite) return "this runtime has no node:sqlite"
      new nodeSqlite.DatabaseSync(":memory:").close()
    } else {
      const Database = createRequire(import.meta.url)("better-sqlite3") as new (
        path: string,
      ) => { close(): void }
      new Database(":memory:").close()
    }
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
