import { createRequire } from "node:module"
import type { Drivers, Open, SqliteDatabase } from "./driver.js"
import { currentRuntime, type Runtime } from "./driver-advice.js"

/**
 * How each driver is loaded: `undefined` when it is not there (better-sqlite3 not installed, a
 * runtime without node:sqlite), an error when it is there but cannot load. better-sqlite3 is
 * resolved from `from` (a file URL or path), as `import` would from that file.
 */
export function runtimeDrivers(from: string | URL, runtime: Runtime = currentRuntime()): Drivers {
  return { betterSqlite3: () => loadBetterSqlite3(from, runtime), nodeSqlite: loadNodeSqlite }
}

/** The drivers as this package finds them. */
export const RUNTIME_DRIVERS: Drivers = runtimeDrivers(import.meta.url)

type BetterSqlite3 = new (path: string, options?: { nativeBinding?: string }) => SqliteDatabase

/**
 * better-sqlite3 with its native addon loaded, so that a build that cannot load here (made for
 * another Node, missing, or refused by Bun or Deno) fails now, not at the first open.
 */
function loadBetterSqlite3(from: string | URL, runtime: Runtime): Open | undefined {
  const require = createRequire(from)
  let Database: BetterSqlite3
  try {
    Database = require("better-sqlite3")
  } catch (error) {
    if (notInstalled(error)) return undefined
    throw error
  }
  refuseCrashingBuild(require, runtime)
  const binding = builtAddon(require)
  if (binding === undefined) {
    // No addon where npm builds it: better-sqlite3's own search, which throws when there is none.
    new Database(":memory:").close()
    return (path) => new Database(path)
  }
  require(binding)
  return (path) => new Database(path, { nativeBinding: binding })
}

/**
 * better-sqlite3 13 declares Node 22 and, installed anyway on Node 20, kills the process with a
 * segmentation fault at its first open (its load probe below included): no error to fall back
 * from. Refused here instead, as a build that cannot load.
 */
function refuseCrashingBuild(require: NodeJS.Require, runtime: Runtime): void {
  if (runtime.name !== "Node" || Number.parseInt(runtime.version, 10) >= 22) return
  const { version } = require("better-sqlite3/package.json") as { version: string }
  if (Number.parseInt(version, 10) < 13) return
  throw new Error(
    `better-sqlite3 ${version} needs Node 22 or later: on Node ${runtime.version} it crashes the process ` +
      "(a segmentation fault) when it opens a database; install better-sqlite3@12 for this Node",
  )
}

function notInstalled(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return code === "MODULE_NOT_FOUND" && String(message).includes("'better-sqlite3'")
}

/**
 * The addon where `npm install` builds it. Named, better-sqlite3 loads it at once; unnamed, it
 * asks the `bindings` package, which searches a dozen places for it, a noticeable part of a
 * process's first open (figures: bench/README.md). Any other layout (a prebuilt binary
 * elsewhere) is left to that search.
 */
function builtAddon(require: NodeJS.Require): string | undefined {
  try {
    return require.resolve("better-sqlite3/build/Release/better_sqlite3.node")
  } catch {
    return undefined
  }
}

function loadNodeSqlite(): Open | undefined {
  // getBuiltinModule is missing before Node 20.16, node:sqlite before Node 22.5 (and behind a
  // flag until 22.13).
  const nodeSqlite = process.getBuiltinModule?.("node:sqlite") as
    | { DatabaseSync: new (path: string) => SqliteDatabase }
    | undefined
  return nodeSqlite && ((path) => new nodeSqlite.DatabaseSync(path))
}
