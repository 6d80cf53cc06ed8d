import { SchemaVersionError } from "../schema-version-error.js"
import type { SqliteDatabase } from "./driver.js"
import { LATEST_VERSION, migrate, userVersion } from "./migrations.js"

/**
 * How long SQLite itself waits for another connection's lock: not at all. The drivers are
 * synchronous, so SQLite's wait blocks the event loop, and calls made in one turn of it wait
 * one after another, the process stalled for all their waits (figures: bench/README.md). A
 * call that finds the database locked fails at once and is run again after an asynchronous
 * wait (see DEFAULT_RETRY in sqlite-storage.ts).
 */
export const BUSY_TIMEOUT_MS = 0

/**
 * Sets the connection up and brings the schema to the latest version. Safe to run again after
 * it failed part way (a busy database): each step checks what is already done.
 */
export function configure(db: SqliteDatabase): void {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  // Before the journal mode, which is written into the file: a newer schema's file is left as it is.
  const version = userVersion(db)
  if (version > LATEST_VERSION) throw SchemaVersionError.of(version, LATEST_VERSION)
  db.exec("PRAGMA journal_mode = WAL")
  db.exec("PRAGMA synchronous = NORMAL")
  db.exec("PRAGMA foreign_keys = ON")
  migrate(db)
}
