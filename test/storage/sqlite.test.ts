import { randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import Database from "better-sqlite3"
import { afterAll, describe, expect, it } from "vitest"
import { NotFoundError } from "../../src/error/not-found.js"
import { CorruptRowError } from "../../src/storage/corrupt-row.js"
import { openDatabase, type SqliteDatabase } from "../../src/storage/sqlite/driver.js"
import {
  SchemaVersionError,
  SqliteOpenError,
  SqliteStorage,
  StorageClosedError,
} from "../../src/storage/sqlite/index.js"
import { LATEST_VERSION } from "../../src/storage/sqlite/migrations.js"
import { SQL } from "../../src/storage/sqlite/statements.js"
import { createBuilders, type RowTarget, storageConformance } from "../../src/testing/index.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-"))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))

const newFile = () => path.join(directory, `${randomUUID()}.sqlite`)
/** Overwrites a row behind the adapter's back (each row kind has a table of that name). */
function overwriteRow(db: Database.Database, target: RowTarget, data: string) {
  const changed = db.prepare(`UPDATE ${target.kind} SET data = ? WHERE id = ?`).run(data, target.id)
  expect(changed.changes).toBe(1)
}

/**
 * A better-sqlite3 connection cut down to the shape of node:sqlite's DatabaseSync: only
 * prepare/exec/close, statements with run/get/all, rows without a prototype. Node 20 has no
 * node:sqlite, so this is how the suite proves the adapter relies on nothing more.
 */
function nodeSqliteShaped(db: Database.Database, onQuery: (sql: string) => void = () => {}): SqliteDatabase {
  const bare = (row: unknown) => (row === undefined ? undefined : Object.assign(Object.create(null), row))
  return {
    prepare(sql) {
      const statement = db.prepare(sql)
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => {
          onQuery(sql)
          return bare(statement.get(...params))
        },
        all: (...params) => {
          onQuery(sql)
          return statement.all(...params).map(bare)
        },
      }
    },
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  }
}

describe("SqliteStorage on a file", () => {
  const files = new WeakMap<SqliteStorage, string>()
  storageConformance(
    () => {
      const file = newFile()
      const storage = new SqliteStorage(file)
      files.set(storage, file)
      return storage
    },
    {
      describe,
      it,
      // Valid JSON that fails the schema; the other suite below writes invalid JSON.
      async corrupt(storage, target) {
        const db = new Database(files.get(storage)!)
        try {
          overwriteRow(db, target, JSON.stringify({ id: 42 }))
        } finally {
          db.close()
        }
      },
    },
  )
})

describe("SqliteStorage on a node:sqlite-shaped connection", () => {
  const connections = new WeakMap<SqliteStorage, Database.Database>()
  storageConformance(
    () => {
      const db = new Database(":memory:")
      const storage = new SqliteStorage(nodeSqliteShaped(db))
      connections.set(storage, db)
      return storage
    },
    {
      describe,
      it,
      async corrupt(storage, target) {
        overwriteRow(connections.get(storage)!, target, '{"id": "truncated')
      },
    },
  )
})

/** Seeds one session with a user message carrying one text part. */
async function seed(storage: SqliteStorage, build = createBuilders()) {
  const session = build.session()
  const message = build.user(session.id)
  const part = build.text(session.id, message.id)
  await storage.write([
    { type: "session.put", info: session },
    { type: "message.put", info: message },
    { type: "part.put", part },
  ])
  return { build, session, message, part }
}

function count(db: Database.Database, table: string): number {
  return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
}

describe("SqliteStorage", () => {
  it("puts a file database in WAL mode", async () => {
    const file = newFile()
    const storage = new SqliteStorage(file)
    const other = new Database(file)
    try {
      expect(other.pragma("journal_mode", { simple: true })).toBe("wal")
    } finally {
      other.close()
      await storage.close()
    }
  })

  it("keeps data across closing and reopening the file", async () => {
    const file = newFile()
    const first = new SqliteStorage(file)
    const { session, message, part } = await seed(first)
    await first.write([{ type: "value.put", key: "todo/a", value: { done: true } }])
    await first.close()

    const second = new SqliteStorage(file)
    try {
      expect(await second.getSession(session.id)).toEqual(session)
      expect(await second.listMessages(session.id)).toEqual([{ info: message, parts: [part] }])
      expect(await second.getValue("todo/a")).toEqual({ done: true })
    } finally {
      await second.close()
    }
  })

  it("creates a fresh database at the latest schema version", async () => {
    const file = newFile()
    await new SqliteStorage(file).close()
    const db = new Database(file)
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(LATEST_VERSION)
      const names = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .pluck()
        .all()
      expect(names).toEqual([
        "coordinator_message",
        "kv",
        "lease",
        "message",
        "part",
        "session",
        "sqlite_sequence",
      ])
    } finally {
      db.close()
    }
  })

  it("refuses a database migrated by a newer agentloop with a SchemaVersionError", async () => {
    const file = newFile()
    const db = new Database(file)
    db.pragma(`user_version = ${LATEST_VERSION + 1}`)
    db.close()

    const error = (() => {
      try {
        new SqliteStorage(file)
      } catch (caught) {
        return caught
      }
    })()
    expect(SchemaVersionError.isInstance(error)).toBe(true)
    expect((error as SchemaVersionError).data).toMatchObject({
      found: LATEST_VERSION + 1,
      supported: LATEST_VERSION,
    })
    expect((error as SchemaVersionError).message).toMatch(/newer agentloop/)

    const untouched = new Database(file)
    try {
      expect(untouched.prepare("SELECT count(*) AS n FROM sqlite_schema").pluck().get()).toBe(0)
    } finally {
      untouched.close()
    }
  })

  it("leaves nothing behind, as another connection sees it, when a batch fails half way", async () => {
    const file = newFile()
    const storage = new SqliteStorage(file)
    const other = new Database(file)
    try {
      const build = createBuilders()
      const session = build.session()
      const message = build.user(session.id)
      const missing = build.ids.ascending("message")
      const failing = storage.write([
        { type: "session.put", info: session },
        { type: "message.put", info: message },
        { type: "part.put", part: build.text(session.id, message.id) },
        { type: "value.put", key: "k", value: 1 },
        { type: "part.put", part: build.text(session.id, missing) },
      ])
      await expect(failing).rejects.toSatisfy((error) => NotFoundError.isInstance(error))
      for (const table of ["session", "message", "part", "kv"]) expect(count(other, table)).toBe(0)

      // A failure inside SQLite mid-batch (here a trigger, standing in for a constraint or I/O
      // error) rolls back too, and leaves the connection ready for the next write.
      other.exec("CREATE TRIGGER refuse BEFORE INSERT ON kv BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
      const driverFailure = storage.write([
        { type: "session.put", info: session },
        { type: "value.put", key: "k", value: 1 },
      ])
      await expect(driverFailure).rejects.toThrow(/disk says no/)
      expect(count(other, "session")).toBe(0)
      await storage.write([{ type: "session.put", info: session }])
      expect(count(other, "session")).toBe(1)
    } finally {
      other.close()
      await storage.close()
    }
  })

  it("accepts an open better-sqlite3 Database, and closes it on close()", async () => {
    const db = new Database(":memory:")
    const storage = new SqliteStorage(db)
    const { session, message, part } = await seed(storage)
    expect(await storage.getMessage(session.id, message.id)).toEqual({ info: message, parts: [part] })
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1)
    await storage.close()
    expect(db.open).toBe(false)
  })

  it("opens ':memory:' itself", async () => {
    const storage = new SqliteStorage(":memory:")
    const { session } = await seed(storage)
    expect((await storage.listSessions()).map((info) => info.id)).toEqual([session.id])
    await storage.close()
  })

  it("opens a path with node:sqlite when better-sqlite3 is not installed", async () => {
    const file = newFile()
    const { db } = openDatabase(file, "better-sqlite3", {
      betterSqlite3: () => undefined,
      nodeSqlite: () => (path) => nodeSqliteShaped(new Database(path)),
    })
    const storage = new SqliteStorage(db)
    const { session } = await seed(storage)
    await storage.close()
    const reopened = new SqliteStorage(file)
    expect(await reopened.getSession(session.id)).toEqual(session)
    await reopened.close()
  })

  it("asks for better-sqlite3 when no driver is available", () => {
    const none = { betterSqlite3: () => undefined, nodeSqlite: () => undefined }
    expect(() => openDatabase(newFile(), undefined, none)).toThrow(/install better-sqlite3/)
    expect(() => openDatabase(newFile(), undefined, none)).toThrow(SqliteOpenError)
  })

  it("names the path when its directory does not exist", () => {
    const file = path.join(directory, "no-such-directory", "agent.sqlite")
    expect(() => new SqliteStorage(file)).toThrow(/no-such-directory.*directory does not exist/)
    expect(() => new SqliteStorage(file)).toThrow(SqliteOpenError)
  })

  it("fails clearly when used after close, and closing twice is harmless", async () => {
    const storage = new SqliteStorage(":memory:")
    await storage.close()
    await storage.close()
    await expect(storage.listSessions()).rejects.toThrow(/SqliteStorage is closed/)
    await expect(storage.listSessions()).rejects.toBeInstanceOf(StorageClosedError)
    await expect(storage.write([{ type: "value.put", key: "k", value: 1 }])).rejects.toThrow(/closed/)
  })

  it("reports a stored value that is not JSON as a CorruptRowError naming the key", async () => {
    const db = new Database(":memory:")
    const storage = new SqliteStorage(db)
    await storage.write([{ type: "value.put", key: "todo/a", value: [] }])
    db.prepare("UPDATE kv SET value = 'not json' WHERE key = 'todo/a'").run()
    await expect(storage.getValue("todo/a")).rejects.toSatisfy(
      (error) => CorruptRowError.isInstance(error) && /todo\/a/.test((error as Error).message),
    )
    await storage.close()
  })

  it("lists values by prefix in JavaScript string order, whatever the characters", async () => {
    const storage = new SqliteStorage(":memory:")
    const keys = [
      "a",
      "a/",
      "a/\u{10FFFF}",
      "a/\u{10FFFF}x",
      "a/b",
      "a0",
      "a\uD7FF",
      "a\uE000",
      "a\uFFFF",
      "a\u{10000}",
      "b",
    ]
    await storage.write(keys.map((key) => ({ type: "value.put" as const, key, value: key })))
    for (const prefix of ["", "a", "a/", "a/\u{10FFFF}", "a\uD7FF", "z"]) {
      const listed = (await storage.listValues(prefix)).map((entry) => entry.key)
      // In JavaScript's string order, as MemoryStorage lists them.
      expect(listed).toEqual(keys.filter((key) => key.startsWith(prefix)).sort())
    }
    await storage.close()
  })

  it("loads a session's messages with their parts in two queries", async () => {
    const queries: string[] = []
    const storage = new SqliteStorage(nodeSqliteShaped(new Database(":memory:"), (sql) => queries.push(sql)))
    const { build, session, message } = await seed(storage)
    await storage.write([{ type: "message.put", info: build.user(session.id) }])
    queries.length = 0
    const loaded = await storage.listMessages(session.id)
    expect(loaded.map((entry) => entry.parts.length)).toEqual([1, 0])
    expect(loaded[0]!.info.id).toBe(message.id)
    expect(queries).toEqual([SQL.listMessages, SQL.listSessionParts])
    await storage.close()
  })

  it("serves listings from indexes, without a sort step", async () => {
    const db = new Database(":memory:")
    const storage = new SqliteStorage(db)
    const listings = [
      SQL.listMessages,
      SQL.listNewestMessages,
      SQL.listSessionParts,
      SQL.listSessionPartsFrom,
      SQL.listMessageParts,
      SQL.listSessions,
      SQL.listChildSessions,
      SQL.listValuesBelow,
    ]
    for (const sql of listings) {
      const params = Array.from(sql.matchAll(/\?/g), () => "x")
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => (row as { detail: string }).detail)
        .join("; ")
      expect(plan, sql).not.toMatch(/TEMP B-TREE/)
      expect(plan, sql).toMatch(/USING (COVERING )?INDEX/)
    }
    await storage.close()
  })
})
