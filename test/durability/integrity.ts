import Database from "better-sqlite3"
import { CorruptRowError } from "../../src/index.js"
import { SchemaVersionError, SqliteOpenError } from "../../src/storage/sqlite/index.js"

/**
 * SQLite's own verdict on the file, read with the driver directly so that no agentloop code
 * stands between the check and the bytes. Undefined when the file is sound.
 */
export function integrityProblem(file: string): string | undefined {
  const db = new Database(file)
  try {
    const verdict: unknown = db.pragma("integrity_check", { simple: true })
    return verdict === "ok" ? undefined : `PRAGMA integrity_check: ${String(verdict).replaceAll("\n", " / ")}`
  } finally {
    db.close()
  }
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
