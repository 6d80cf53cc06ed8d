import { createHash, randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { NotFoundError } from "../../src/error/not-found.js"
import { CorruptRowError } from "../../src/storage/corrupt-row.js"
import {
  SchemaVersionError,
  type SqliteDatabase,
  type SqliteDriver,
  SqliteOpenError,
  SqliteStorage,
  StorageClosedError,
} from "../../src/storage/sqlite/index.js"
import { LATEST_VERSION } from "../../src/storage/sqlite/migrations.js"
import { SQL } from "../../src/storage/sqlite/statements.js"
import { createBuilders, type RowTarget, storageConformance } from "../../src/testing/index.js"
import { columnOf, connect, firstValue } from "./sqlite-connect.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-"))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))

const newFile = () => path.join(directory, `${randomUUID()}.sqlite`)
/** Overwrites a row behind the adapter's back (each row kind has a table of that name). */
function overwriteRow(db: SqliteDatabase, target: RowTarget, data: string) {
  const changed = db.prepare(`UPDATE ${target.kind} SET data = ? WHERE id = ?`).run(data, target.id)
  expect((changed as { changes: number | bigint }).changes).toEqual(1)
}

/** A connection that reports each query it reads rows with. */
function recording(db: SqliteDatabase, onQuery: (sql: string) => void): SqliteDatabase {
  return {
    prepare(sql) {
      const statement = db.prepare(sql)
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => {
          onQuery(sql)
          return statement.get(...params)
        },
        all: (...params) => {
          onQuery(sql)
          return statement.all(...params)
        },
      }
    },
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  }
}

/** Whether a connection of either driver is still open. */
function isOpen(db: SqliteDatabase): boolean {
  try {
    db.prepare("SELECT 1").get()
    return true
  } catch {
    return false
  }
}

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

function count(db: SqliteDatabase, table: string): number {
  return Number(firstValue(db, `SELECT count(*) AS n FROM ${table}`))
}

/** A database file at the schema version after this one's, in `journal` mode. */
function newerSchemaFile(driver: SqliteDriver, journal: "delete" | "wal"): string {
  const file = newFile()
  const db = connect(driver, file)
  db.exec(`PRAGMA journal_mode = ${journal}`)
  db.exec("CREATE TABLE from_the_future (id TEXT PRIMARY KEY, data TEXT)")
  db.exec("INSERT INTO from_the_future VALUES ('a', '{}')")
  db.exec(`PRAGMA user_version = ${LATEST_VERSION + 1}`)
  db.close()
  return file
}

/** Every file of the database (the file itself, a WAL, a journal), with a digest of its bytes. */
function filesOf(file: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const suffix of ["", "-wal", "-shm", "-journal"])
    if (fs.existsSync(file + suffix))
      found[suffix || "db"] = createHash("sha256")
        .update(fs.readFileSync(file + suffix))
        .digest("hex")
  return found
}

for (const driver of sqliteDrivers()) {
  describe(`SqliteStorage on a file, through ${driver}`, () => {
    const files = new WeakMap<SqliteStorage, string>()
    storageConformance(
      () => {
        const file = newFile()
        const storage = new SqliteStorage(file, { driver })
        expect(storage.driver).toBe(driver)
        files.set(storage, file)
        return storage
      },
      {
        describe,
        it,
        // Parts get invalid JSON, the other rows valid JSON that fails the schema.
        async corrupt(storage, target) {
          const db = connect(driver, files.get(storage)!)
          try {
            overwriteRow(
              db,
              target,
              target.kind === "part" ? '{"id": "truncated' : JSON.stringify({ id: 42 }),
            )
          } finally {
            db.close()
          }
        },
      },
    )
  })

  describe(`SqliteStorage through ${driver}`, () => {
    const open = (file: string) => new SqliteStorage(file, { driver })

    it("puts a file database in WAL mode", async () => {
      const file = newFile()
      const storage = open(file)
      const other = connect(driver, file)
      try {
        expect(firstValue(other, "PRAGMA journal_mode")).toBe("wal")
      } finally {
        other.close()
        await storage.close()
      }
    })

    it("keeps data across closing and reopening the file", async () => {
      const file = newFile()
      const first = open(file)
      const { session, message, part } = await seed(first)
      await first.write([{ type: "value.put", key: "todo/a", value: { done: true } }])
      await first.close()

      const second = open(file)
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
      await open(file).close()
      const db = connect(driver, file)
      try {
        expect(Number(firstValue(db, "PRAGMA user_version"))).toBe(LATEST_VERSION)
        expect(columnOf(db, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")).toEqual([
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

    it.each(["delete", "wal"] as const)(
      "refuses a database migrated by a newer agentloop with a SchemaVersionError, leaving its bytes as they were (journal mode %s)",
      (journal) => {
        const file = newerSchemaFile(driver, journal)
        const before = filesOf(file)
        const error = (() => {
          try {
            open(file)
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
        expect(filesOf(file)).toEqual(before)
      },
    )

    it("leaves nothing behind, as another connection sees it, when a batch fails half way", async () => {
      const file = newFile()
      const storage = open(file)
      const other = connect(driver, file)
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

    it("accepts an open connection, and closes it on close()", async () => {
      const db = connect(driver)
      const storage = new SqliteStorage(db)
      expect(storage.driver).toBeUndefined()
      const { session, message, part } = await seed(storage)
      expect(await storage.getMessage(session.id, message.id)).toEqual({ info: message, parts: [part] })
      expect(firstValue(db, "PRAGMA foreign_keys")).toEqual(1)
      await storage.close()
      expect(isOpen(db)).toBe(false)
    })

    it("opens ':memory:' itself", async () => {
      const storage = open(":memory:")
      const { session } = await seed(storage)
      expect((await storage.listSessions()).map((info) => info.id)).toEqual([session.id])
      await storage.close()
    })

    it("names the path when its directory does not exist", () => {
      const file = path.join(directory, "no-such-directory", "agent.sqlite")
      expect(() => open(file)).toThrow(/no-such-directory.*directory does not exist/)
      expect(() => open(file)).toThrow(SqliteOpenError)
    })

    it("fails clearly when used after close, and closing twice is harmless", async () => {
      const storage = open(":memory:")
      await storage.close()
      await storage.close()
      await expect(storage.listSessions()).rejects.toThrow(/SqliteStorage is closed/)
      await expect(storage.listSessions()).rejects.toBeInstanceOf(StorageClosedError)
      await expect(storage.write([{ type: "value.put", key: "k", value: 1 }])).rejects.toThrow(/closed/)
    })

    it("reports a stored value that is not JSON as a CorruptRowError naming the key", async () => {
      const db = connect(driver)
      const storage = new SqliteStorage(db)
      await storage.write([{ type: "value.put", key: "todo/a", value: [] }])
      db.prepare("UPDATE kv SET value = 'not json' WHERE key = 'todo/a'").run()
      await expect(storage.getValue("todo/a")).rejects.toSatisfy(
        (error) => CorruptRowError.isInstance(error) && /todo\/a/.test((error as Error).message),
      )
      await storage.close()
    })

    it("lists values by prefix in JavaScript string order, whatever the characters", async () => {
      const storage = open(":memory:")
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
      const storage = new SqliteStorage(recording(connect(driver), (sql) => queries.push(sql)))
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
      const db = connect(driver)
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
}
