// Another connection on a SQLite file, in a process of its own, holding the write lock for a
// while: BEGIN IMMEDIATE and an uncommitted insert, so other writers get SQLITE_BUSY.
// argv: <file> <holdMs>. out: "locked" once it holds the lock, "released" once it lets go.
import { getBuiltinModule } from "node:process"

type Database = { exec(sql: string): void; close(): void }
const sqlite = getBuiltinModule("node:sqlite") as { DatabaseSync: new (path: string) => Database }

const [file, holdMs] = process.argv.slice(2)
const db = new sqlite.DatabaseSync(file!)
db.exec("PRAGMA journal_mode = WAL")
db.exec("CREATE TABLE IF NOT EXISTS lock_holder (at INTEGER)")
db.exec("BEGIN IMMEDIATE")
db.exec(`INSERT INTO lock_holder (at) VALUES (${Date.now()})`)
process.stdout.write("locked\n")
setTimeout(() => {
  db.exec("COMMIT")
  db.close()
  process.stdout.write("released\n")
}, Number(holdMs))
