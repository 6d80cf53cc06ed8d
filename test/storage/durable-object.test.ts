import { describe, expect, it } from "vitest"
import {
  DurableObjectSqliteStorage,
  type DurableObjectSqlStorage,
} from "../../src/storage/durable-object/index.js"
import type { SqliteDatabase } from "../../src/storage/sqlite/index.js"
import { createBuilders, storageConformance } from "../../src/testing/index.js"
import { connect } from "./sqlite-connect.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

const [driver] = sqliteDrivers()
if (!driver) throw new Error("no SQLite driver loads in this runtime: the fake Durable Object needs one")

/**
 * A Durable Object's SQL as workerd gives it (test/runtimes/workerd/run.ts runs the real one):
 * BEGIN, COMMIT, ROLLBACK and SAVEPOINT refused, PRAGMAs other than foreign_keys and table_list
 * refused (SQLITE_AUTH), no BigInt bound, and transactions only through transactionSync.
 */
function durableObjectSql(): DurableObjectSqlStorage & { database: SqliteDatabase } {
  const database = connect(driver ?? "node:sqlite")
  let depth = 0
  const exec = (query: string, ...bindings: unknown[]) => {
    if (/^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(query))
      throw new Error("To execute a transaction, please use the state.storage.transactionSync() API")
    if (/^\s*PRAGMA\s+(?!foreign_keys|table_list)/i.test(query))
      throw new Error("not authorized: SQLITE_AUTH")
    if (bindings.some((value) => typeof value === "bigint"))
      throw new TypeError("Cannot convert a BigInt value to a number")
    if (/;\s*\S/.test(query)) {
      database.exec(query)
      return { toArray: () => [], raw: () => [] }
    }
    const statement = database.prepare(query)
    return {
      toArray: () => statement.all(...bindings) as Record<string, string | number | null>[],
      raw: () => statement.all(...bindings).map((row) => Object.values(row as object)),
    }
  }
  return {
    database,
    sql: { exec },
    transactionSync<T>(body: () => T): T {
      const name = `t${depth++}`
      database.exec(`SAVEPOINT ${name}`)
      try {
        const result = body()
        database.exec(`RELEASE ${name}`)
        return result
      } catch (error) {
        database.exec(`ROLLBACK TO ${name}`)
        database.exec(`RELEASE ${name}`)
        throw error
      } finally {
        depth--
      }
    },
  }
}

describe("DurableObjectSqliteStorage", () => {
  storageConformance(() => new DurableObjectSqliteStorage(durableObjectSql()), { describe, it })

  it("keeps its schema version in a table of its own, since the object refuses PRAGMA user_version", () => {
    const sql = durableObjectSql()
    new DurableObjectSqliteStorage(sql)
    const [row] = sql.database.prepare("SELECT version FROM agentloop_schema_version").all()
    expect(row).toEqual({ version: expect.any(Number) })
    const tables = sql.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
    expect(tables.map((table) => (table as { name: string }).name)).toEqual(
      expect.arrayContaining(["session", "message", "part"]),
    )
  })

  it("refuses a database of a newer schema with SchemaVersionError, leaving it as it is", () => {
    const sql = durableObjectSql()
    new DurableObjectSqliteStorage(sql)
    sql.database.exec("UPDATE agentloop_schema_version SET version = 99")
    expect(() => new DurableObjectSqliteStorage(sql)).toThrow(
      expect.objectContaining({ name: "SchemaVersionError" }) as Error,
    )
    expect(sql.database.prepare("SELECT version FROM agentloop_schema_version").get()).toEqual({
      version: 99,
    })
  })

  it("opens the same object's database again without migrating it twice", async () => {
    const sql = durableObjectSql()
    const session = createBuilders().session()
    await new DurableObjectSqliteStorage(sql).write([{ type: "session.put", info: session }])
    const again = new DurableObjectSqliteStorage(sql)
    expect(await again.getSession(session.id)).toEqual(session)
  })
})
