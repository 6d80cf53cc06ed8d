import { CorruptRowError } from "../../src/index.js"
import { SchemaVersionError, type SqliteDriver, SqliteOpenError } from "../../src/storage/sqlite/index.js"
import { withRaw } from "../fixtures/sqlite-raw.js"

/**
 * SQLite's own verdict on the file, read with `driver` directly so that no agentloop code
 * stands between the check and the bytes. Undefined when the file is sound.
 */
export function integrityProblem(file: string, driver: SqliteDriver): string | undefined {
  const rows = withRaw(file, driver, (db) => db.all<Record<string, unknown>>("PRAGMA integrity_check"))
  const verdict = rows.map((row) => String(Object.values(row)[0])).join(" / ")
  return verdict === "ok" ? undefined : `PRAGMA integrity_check: ${verdict.replaceAll("\n", " / ")}`
}

/** Errors that mean the file itself is unreadable, whichever check ran into them. */
export function isStorageFault(error: unknown): boolean {
  return (
    CorruptRowError.isInstance(error) ||
    SchemaVersionError.isInstance(error) ||
    SqliteOpenError.isInstance(error)
  )
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}
