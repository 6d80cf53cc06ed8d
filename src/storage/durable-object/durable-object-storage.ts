import { SqliteStorage } from "../sqlite/sqlite-storage.js"
import { type DurableObjectSqlStorage, durableObjectDatabase } from "./sql-database.js"

/**
 * Storage in a SQLite-backed Cloudflare Durable Object (`new DurableObjectSqliteStorage(ctx.storage)`),
 * so that each conversation lives in an object of its own: SqliteStorage's schema, rows and
 * behaviour over the object's SQL. An object runs alone (one instance per ID, one request at a
 * time between awaits), so it needs no coordinator. See docs/cloudflare-workers.md.
 */
export class DurableObjectSqliteStorage extends SqliteStorage {
  constructor(storage: DurableObjectSqlStorage) {
    super(durableObjectDatabase(storage), { coordinator: false })
  }
}
