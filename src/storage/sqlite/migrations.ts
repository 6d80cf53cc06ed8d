import { SchemaVersionError } from "../schema-version-error.js"
import type { SqliteDatabase } from "./driver.js"
import { nativeTransactions } from "./native-transactions.js"

/**
 * Schema migrations; migration N (1-based) takes `PRAGMA user_version` from N - 1 to N.
 * Append only: a released migration never changes, since databases out there already ran it.
 *
 * Rows are JSON documents validated by the zod schemas on the way in, and on the way out unless
 * they carry the current row stamp; columns exist only for keys, relations, ordering and stamps. Messages and parts are keyed under their session
 * (and message), as MemoryStorage scopes them, so the primary keys double as the indexes that
 * list a session's messages by ID and its parts by (message ID, part ID).
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE session (
    id TEXT PRIMARY KEY NOT NULL,
    parent_id TEXT REFERENCES session (id) ON DELETE CASCADE,
    data TEXT NOT NULL
  );
  CREATE INDEX session_parent ON session (parent_id, id);

  CREATE TABLE message (
    session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );

  CREATE TABLE part (
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, message_id, id),
    FOREIGN KEY (session_id, message_id) REFERENCES message (session_id, id) ON DELETE CASCADE
  );

  CREATE TABLE kv (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
  );
  `,
  // Row stamps (see rowStamp in ../rows.ts): SqliteStorage stamps each session, message and part
  // row it writes with the stamp of its row format and skips the schema check when reading a
  // row with that stamp back. Rows written before this migration have none and stay validated.
  // Each write of a row through SqliteStorage flips the stamp's sign, so an update that leaves
  // the stamp as it was comes from someone else, and the trigger takes the stamp away.
  `
  ALTER TABLE session ADD COLUMN stamp INTEGER;
  ALTER TABLE message ADD COLUMN stamp INTEGER;
  ALTER TABLE part ADD COLUMN stamp INTEGER;

  CREATE TRIGGER session_unstamp AFTER UPDATE OF data ON session
  WHEN NEW.stamp IS OLD.stamp
  BEGIN UPDATE session SET stamp = NULL WHERE rowid = NEW.rowid; END;

  CREATE TRIGGER message_unstamp AFTER UPDATE OF data ON message
  WHEN NEW.stamp IS OLD.stamp
  BEGIN UPDATE message SET stamp = NULL WHERE rowid = NEW.rowid; END;

  CREATE TRIGGER part_unstamp AFTER UPDATE OF data ON part
  WHEN NEW.stamp IS OLD.stamp
  BEGIN UPDATE part SET stamp = NULL WHERE rowid = NEW.rowid; END;
  `,
  // SqliteCoordinator (coordinator.ts): who runs which session, and the messages processes send
  // each other. A lease names its owner (one per SqliteStorage; since lease-owner.ts a JSON document
  // naming its process too, an older bare UUID still read) and its token (one per claim, so
  // that a late release or renewal of an old claim leaves a newer one alone); expires_at is epoch
  // ms, and a lease past it is free. No foreign key: a session is claimed before it is removed.
  // Message IDs never go back (AUTOINCREMENT), so a reader's "after the last ID I saw" holds
  // across the trimming of old messages.
  `
  CREATE TABLE lease (
    session_id TEXT PRIMARY KEY NOT NULL,
    owner TEXT NOT NULL,
    token TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );

  CREATE TABLE coordinator_message (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    origin TEXT NOT NULL,
    payload TEXT NOT NULL,
    created INTEGER NOT NULL
  );
  `,
]

export const LATEST_VERSION = migrations.length

/**
 * Brings the schema to LATEST_VERSION. Each migration runs in its own write transaction that
 * re-reads the version first, so two processes opening a new file at once migrate it once.
 */
export function migrate(db: SqliteDatabase): void {
  const initial = userVersion(db)
  if (initial > LATEST_VERSION) throw SchemaVersionError.of(initial, LATEST_VERSION)
  const native = nativeTransactions(db)
  for (let version = initial; version < LATEST_VERSION; ) {
    if (native) {
      version = native.transactionSync(() => step(db))
      continue
    }
    db.exec("BEGIN IMMEDIATE")
    try {
      version = step(db)
      db.exec("COMMIT")
    } catch (error) {
      rollback(db)
      throw error
    }
  }
}

/** Runs the next migration, inside its transaction; returns the version reached. */
function step(db: SqliteDatabase): number {
  const version = userVersion(db)
  if (version > LATEST_VERSION) throw SchemaVersionError.of(version, LATEST_VERSION)
  if (version === LATEST_VERSION) return version
  db.exec(migrations[version]!)
  db.exec(`PRAGMA user_version = ${version + 1}`)
  return version + 1
}

export function userVersion(db: SqliteDatabase): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number | bigint }
  return Number(row.user_version)
}

/** Ends a failed transaction; a rollback that fails because SQLite already ended it is moot. */
export function rollback(db: SqliteDatabase): void {
  try {
    db.exec("ROLLBACK")
  } catch {
    // SQLite rolls back by itself after some errors (disk full, I/O); nothing is left to undo.
  }
}
