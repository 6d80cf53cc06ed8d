import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"
import type { Logger } from "../../provider/logger.js"
import type { Drivers, Open, SqliteDatabase, SqliteDriver } from "./driver.js"
import {
  type Attempt,
  currentRuntime,
  fallbackMessage,
  noDriverMessage,
  type Runtime,
  WORKERS_MESSAGE,
} from "./driver-advice.js"
import { RUNTIME_DRIVERS } from "./driver-loaders.js"
import { SqliteOpenError } from "./storage-errors.js"

/** The code of the warning given when the other driver opened a path: stable, for filters. */
export const DRIVER_FALLBACK_WARNING = "AGENTLOOP_SQLITE_DRIVER_FALLBACK"

/** Where the fallback warning goes by default: the process's warnings, under a stable code. */
export const processWarnings: Logger = {
  warn: (message) => process.emitWarning(message, { code: DRIVER_FALLBACK_WARNING }),
}

/** An open database and the driver that opened it. */
export type Opened = { db: SqliteDatabase; driver: SqliteDriver }

export type OpenOptions = {
  /** The driver to try first; by default node:sqlite, with no warning when it is missing. */
  driver?: SqliteDriver | undefined
  /** Gets the one warning when the driver asked for is not usable and the other one is used. */
  logger?: Logger | undefined
  drivers?: Drivers
  runtime?: Runtime
}

const PathOptions = z.object({
  driver: z.enum(["node:sqlite", "better-sqlite3"]).optional(),
  logger: z
    .custom<Logger>((value) => typeof (value as { warn?: unknown } | null)?.warn === "function", {
      message: "expected a logger ({ warn(message) })",
    })
    .optional(),
})

/** SqliteStorage's `driver` and `logger` options, checked (InvalidInputError naming the field). */
export function pathOptions(given: { driver?: unknown; logger?: unknown }): {
  driver?: SqliteDriver | undefined
  logger?: Logger | undefined
} {
  return parseInput("SqliteStorage options", PathOptions, { driver: given.driver, logger: given.logger })
}

/**
 * Opens a database file (or ":memory:") with the driver asked for, else the runtime's own
 * `node:sqlite`, else better-sqlite3. A driver asked for that is missing or cannot load gives
 * way to the other with one warning; with neither, SqliteOpenError says what to install. The
 * drivers are loaded here, on demand, so that importing this subpath never requires an
 * optional peer dependency the host may not have installed.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Opened {
  const runtime = options.runtime ?? currentRuntime()
  if (runtime.name === "Workers") throw new SqliteOpenError({ path, message: WORKERS_MESSAGE })
  const drivers = options.drivers ?? RUNTIME_DRIVERS
  const order: SqliteDriver[] =
    options.driver === "better-sqlite3"
      ? ["better-sqlite3", "node:sqlite"]
      : ["node:sqlite", "better-sqlite3"]
  const attempts: Attempt[] = []
  for (const driver of order) {
    const { attempt, open } = load(driver, drivers)
    attempts.push(attempt)
    if (!open) continue
    const first = attempts[0]!
    if (first !== attempt && (options.driver !== undefined || first.state === "broken")) {
      ;(options.logger ?? processWarnings).warn(fallbackMessage(runtime, first, driver, path))
    }
    return { db: openWith(open, path), driver }
  }
  const betterSqlite3 = attempts.find((attempt) => attempt.driver === "better-sqlite3")!
  const cause = betterSqlite3.state === "broken" ? { cause: betterSqlite3.error } : undefined
  throw new SqliteOpenError({ path, message: noDriverMessage(runtime, betterSqlite3) }, cause)
}

function load(driver: SqliteDriver, drivers: Drivers): { attempt: Attempt; open?: Open } {
  try {
    const open = driver === "node:sqlite" ? drivers.nodeSqlite() : drivers.betterSqlite3()
    return open ? { attempt: { driver, state: "ready" }, open } : { attempt: { driver, state: "missing" } }
  } catch (error) {
    return { attempt: { driver, state: "broken", error } }
  }
}

function openWith(open: Open, path: string): SqliteDatabase {
  try {
    return open(path)
  } catch (error) {
    const reason = missingDirectory(path)
      ? "its directory does not exist"
      : error instanceof Error
        ? error.message
        : String(error)
    throw new SqliteOpenError(
      { path, message: `Cannot open the SQLite database at ${JSON.stringify(path)}: ${reason}` },
      { cause: error },
    )
  }
}

/**
 * Whether the folder a path would be created in is missing: node:sqlite says only "unable to
 * open database file" where better-sqlite3 names the cause. Asked only after a failed open, of
 * modules looked up then, so that this file imports nothing a bundle for another runtime lacks.
 */
function missingDirectory(path: string): boolean {
  if (path.startsWith("file:")) return false
  const fs = process.getBuiltinModule?.("node:fs") as typeof import("node:fs") | undefined
  const nodePath = process.getBuiltinModule?.("node:path") as typeof import("node:path") | undefined
  return (
    fs !== undefined && nodePath !== undefined && !fs.existsSync(nodePath.dirname(nodePath.resolve(path)))
  )
}
