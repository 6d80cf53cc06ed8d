import type { SqliteDatabase, SqliteStatement } from "../sqlite/driver.js"
import type { NativeTransactions } from "../sqlite/native-transactions.js"

/** A value a Durable Object's SQL gives back (a BLOB comes as an ArrayBuffer). */
export type SqlStorageValue = ArrayBuffer | string | number | null

/** The cursor `sql.exec` returns, as far as the storage reads it. */
export type SqlStorageCursor = {
  toArray(): Record<string, SqlStorageValue>[]
  raw(): Iterable<SqlStorageValue[]>
}

/**
 * What the storage uses of a SQLite-backed Durable Object's `ctx.storage`: its synchronous SQL
 * and its transactions. Written out here so that no Cloudflare types are needed to compile.
 */
export type DurableObjectSqlStorage = {
  sql: { exec(query: string, ...bindings: unknown[]): SqlStorageCursor }
  transactionSync<T>(body: () => T): T
}

// The storage keeps its schema version in `PRAGMA user_version`, which a Durable Object refuses
// (SQLITE_AUTH), as it refuses the connection settings: they are answered here instead.
const USER_VERSION = /^PRAGMA user_version$/i
const SET_USER_VERSION = /^PRAGMA user_version = (\d+)$/i
const SETTINGS = /^PRAGMA (busy_timeout|journal_mode|synchronous) = /i
const VERSION_TABLE = "agentloop_schema_version"

/**
 * A SqliteDatabase over a Durable Object's SQL, for SqliteStorage: statements run through
 * `sql.exec`, transactions through `transactionSync` (BEGIN is refused there), and what the
 * object refuses or does itself (its schema version, WAL, busy waits) is answered here.
 */
export function durableObjectDatabase(storage: DurableObjectSqlStorage): SqliteDatabase & NativeTransactions {
  const exec = (query: string, params: unknown[]) => storage.sql.exec(query, ...params.map(binding))
  let versionTable = false
  const version = (): number => {
    if (!versionTable)
      exec(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version INTEGER NOT NULL)`, []).toArray()
    versionTable = true
    const [row] = exec(`SELECT version FROM ${VERSION_TABLE}`, []).toArray()
    return Number(row?.version ?? 0)
  }
  const setVersion = (value: number): void => {
    version()
    exec(`DELETE FROM ${VERSION_TABLE}`, []).toArray()
    exec(`INSERT INTO ${VERSION_TABLE} (version) VALUES (?)`, [value]).toArray()
  }
  return {
    prepare(query: string): SqliteStatement {
      if (USER_VERSION.test(query.trim())) return answer(() => [{ user_version: version() }])
      let arrays = false
      return {
        run: (...params) => exec(query, params).toArray(),
        get: (...params) => exec(query, params).toArray()[0],
        all: (...params) => (arrays ? [...exec(query, params).raw()] : exec(query, params).toArray()),
        raw: (toggle = true) => {
          arrays = toggle
        },
      }
    },
    exec(query: string): void {
      const text = query.trim()
      const set = SET_USER_VERSION.exec(text)
      if (set) setVersion(Number(set[1]))
      else if (!SETTINGS.test(text)) exec(text, []).toArray()
    },
    close(): void {
      // The object owns its storage: there is nothing to close.
    },
    transactionSync: (body) => storage.transactionSync(body),
  }
}

function answer(rows: () => unknown[]): SqliteStatement {
  return { run: rows, get: () => rows()[0], all: rows }
}

/** A Durable Object binds no BigInt: one in the safe range goes as a number. */
function binding(value: unknown): unknown {
  if (typeof value !== "bigint") return value
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
    throw new RangeError(`A Durable Object cannot bind ${value}: beyond the safe integer range`)
  return Number(value)
}
