import type { DataPath } from "../../tool/data-path.js"
import type { SqliteDatabase } from "./driver.js"

// What SQLite keeps beside the database file: a hot journal or WAL planted there would be
// replayed into the database by the next connection.
const SIBLINGS = ["", "-wal", "-shm", "-journal"]

/**
 * The database file as SQLite opened it (absolute) and its siblings; none for a database in
 * memory or a temporary one. Asked of the connection, so that an open database passed in
 * names its file too.
 */
export function databaseFiles(db: SqliteDatabase): DataPath[] {
  let file: unknown
  try {
    const rows = db.prepare("PRAGMA database_list").all() as { name?: unknown; file?: unknown }[]
    file = rows.find((row) => row.name === "main")?.file
  } catch {
    // A connection that cannot answer names no file: nothing to keep away.
  }
  if (typeof file !== "string" || file === "") return []
  return SIBLINGS.map((suffix) => ({ path: `${file}${suffix}`, kind: "file" as const }))
}
