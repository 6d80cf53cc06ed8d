import { describe, expect, it } from "vitest"
import type { WithParts } from "../../src/message/info.js"
import { CorruptRowError } from "../../src/storage/corrupt-row.js"
import { rowStamp } from "../../src/storage/rows.js"
import { type SqliteDatabase, type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { LATEST_VERSION, migrations } from "../../src/storage/sqlite/migrations.js"
import { SQL } from "../../src/storage/sqlite/statements.js"
import { createBuilders } from "../../src/testing/index.js"
import { connect, firstValue, readingBigInts } from "./sqlite-connect.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

type Table = "session" | "message" | "part"

/**
 * A connection whose statements offer neither better-sqlite3's `raw` nor node:sqlite's
 * `setReturnArrays`, so rows come as objects; `onQuery` hears each query read with `all`.
 */
function objectsOnly(db: SqliteDatabase, onQuery: (sql: string) => void = () => {}): SqliteDatabase {
  return {
    prepare(sql) {
      const statement = db.prepare(sql)
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => statement.get(...params),
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

/**
 * A storage on an in-memory connection of `driver` the test can also reach behind the adapter's
 * back; with `bigints`, one that reads integers as bigints.
 */
function open(driver: SqliteDriver, bigints = false) {
  const connection = connect(driver)
  const db = bigints ? readingBigInts(connection) : connection
  return { db, storage: new SqliteStorage(db) }
}

/** Seeds a session with a user message and one text part, written through the adapter. */
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

/** Whether an error is a CorruptRowError (naming the row `id`, when given). */
function corrupt(id?: string) {
  return (error: unknown) =>
    CorruptRowError.isInstance(error) && (id === undefined || (error as CorruptRowError).data.id === id)
}

function stampOf(db: SqliteDatabase, table: Table, id: string): unknown {
  return firstValue(db, `SELECT stamp FROM ${table} WHERE id = ?`, id)
}

function dataOf(db: SqliteDatabase, table: Table, id: string): Record<string, unknown> {
  return JSON.parse(firstValue(db, `SELECT data FROM ${table} WHERE id = ?`, id) as string)
}

/**
 * Adds a key the schemas do not know to a stored row. The zod decode strips unknown keys, so
 * whether a read returns `extra` tells whether the row was validated.
 */
function withExtra(db: SqliteDatabase, table: Table, id: string): string {
  return JSON.stringify({ ...dataOf(db, table, id), extra: "not in the schema" })
}

async function readAll(storage: SqliteStorage, sessionID: string, messageID: string) {
  const listed = await storage.listMessages(sessionID)
  return {
    session: (await storage.getSession(sessionID)) as Record<string, unknown> | undefined,
    listedSession: (await storage.listSessions())[0] as Record<string, unknown> | undefined,
    message: listed[0]!.info as Record<string, unknown>,
    part: listed[0]!.parts[0] as Record<string, unknown>,
    got: (await storage.getMessage(sessionID, messageID)) as WithParts,
  }
}

for (const driver of sqliteDrivers()) {
  describe(`SqliteStorage row stamps, through ${driver}`, () => {
    it("stamps every session, message and part it writes with this version's row stamp", async () => {
      const { db, storage } = open(driver)
      const { session, message, part } = await seed(storage)
      const stamp = rowStamp()
      expect(Number.isSafeInteger(stamp) && stamp > 0 && stamp < 2 ** 48).toBe(true)
      expect(rowStamp()).toBe(stamp)
      expect(stampOf(db, "session", session.id)).toBe(stamp)
      expect(stampOf(db, "message", message.id)).toBe(stamp)
      expect(stampOf(db, "part", part.id)).toBe(stamp)
      await storage.close()
    })

    it("reads rows carrying the current stamp back with JSON.parse alone, without the schema check", async () => {
      const { db, storage } = open(driver)
      const { session, message, part } = await seed(storage)
      // Forge a change that keeps each row trusted: a new stamp value the adapter recognises.
      for (const [table, id] of [
        ["session", session.id],
        ["message", message.id],
        ["part", part.id],
      ] as const) {
        db.prepare(`UPDATE ${table} SET data = ?, stamp = -stamp WHERE id = ?`).run(
          withExtra(db, table, id),
          id,
        )
        expect(stampOf(db, table, id)).toBe(-rowStamp())
      }
      const read = await readAll(storage, session.id, message.id)
      // The zod decode would have stripped `extra`: these rows were not decoded.
      expect(read.session?.extra).toBe("not in the schema")
      expect(read.listedSession?.extra).toBe("not in the schema")
      expect(read.message.extra).toBe("not in the schema")
      expect(read.part.extra).toBe("not in the schema")
      expect((read.got.info as Record<string, unknown>).extra).toBe("not in the schema")
      await storage.close()
    })

    it("validates a row another writer inserted by raw SQL, and fails on a bad one with CorruptRowError", async () => {
      const { db, storage } = open(driver)
      const { build, session, message } = await seed(storage)
      const good = build.text(session.id, message.id, "from another writer")
      db.prepare("INSERT INTO part (session_id, message_id, id, data) VALUES (?, ?, ?, ?)").run(
        session.id,
        message.id,
        good.id,
        JSON.stringify({ ...good, extra: "not in the schema" }),
      )
      expect(stampOf(db, "part", good.id)).toBeNull()
      const parts = (await storage.listMessages(session.id))[0]!.parts
      expect(parts.at(-1)).toEqual(good) // validated: the unknown key is gone

      const bad = build.text(session.id, message.id)
      db.prepare("INSERT INTO part (session_id, message_id, id, data) VALUES (?, ?, ?, ?)").run(
        session.id,
        message.id,
        bad.id,
        JSON.stringify({ ...bad, type: "no-such-type" }),
      )
      await expect(storage.listMessages(session.id)).rejects.toSatisfy(corrupt(bad.id))
      await expect(storage.getMessage(session.id, message.id)).rejects.toSatisfy(corrupt())

      const badSession = build.session()
      db.prepare("INSERT INTO session (id, parent_id, data) VALUES (?, NULL, ?)").run(
        badSession.id,
        JSON.stringify({ ...badSession, cost: "free" }),
      )
      await expect(storage.getSession(badSession.id)).rejects.toSatisfy(corrupt())
      await expect(storage.listSessions()).rejects.toSatisfy(corrupt())
      await storage.close()
    })

    it("takes the stamp away when another writer updates a row's data, so the row is validated again", async () => {
      const { db, storage } = open(driver)
      const { session, message, part } = await seed(storage)
      for (const [table, id] of [
        ["session", session.id],
        ["message", message.id],
        ["part", part.id],
      ] as const) {
        db.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`).run(withExtra(db, table, id), id)
        expect(stampOf(db, table, id)).toBeNull()
      }
      const read = await readAll(storage, session.id, message.id)
      expect(read.session).toEqual(session)
      expect(read.message).toEqual(message)
      expect(read.part).toEqual(part)

      db.prepare("UPDATE part SET data = ? WHERE id = ?").run(JSON.stringify({ id: 42 }), part.id)
      await expect(storage.listMessages(session.id)).rejects.toSatisfy(corrupt(part.id))
      await storage.close()
    })

    it("validates rows with another version's stamp", async () => {
      const { db, storage } = open(driver)
      const { session, message, part } = await seed(storage)
      const older = rowStamp() === 12_345 ? 54_321 : 12_345
      db.prepare("UPDATE message SET data = ?, stamp = ? WHERE id = ?").run(
        withExtra(db, "message", message.id),
        older,
        message.id,
      )
      expect(stampOf(db, "message", message.id)).toBe(older)
      expect((await storage.listMessages(session.id))[0]!.info).toEqual(message)

      db.prepare("UPDATE part SET data = ?, stamp = ? WHERE id = ?").run(
        JSON.stringify({ ...part, type: "no-such-type" }),
        -older,
        part.id,
      )
      await expect(storage.listMessages(session.id)).rejects.toSatisfy(corrupt())
      await storage.close()
    })

    it("flips the stamp's sign on every write of a row, and trusts both signs", async () => {
      const { db, storage } = open(driver)
      const { session, message, part } = await seed(storage)
      const seen: unknown[] = [stampOf(db, "part", part.id)]
      for (const text of ["two", "three"]) {
        await storage.write([{ type: "part.put", part: { ...part, text } as typeof part }])
        seen.push(stampOf(db, "part", part.id))
        expect((await storage.listMessages(session.id))[0]!.parts[0]).toEqual({ ...part, text })
      }
      expect(seen).toEqual([rowStamp(), -rowStamp(), rowStamp()])
      await storage.write([{ type: "message.put", info: message }])
      expect(stampOf(db, "message", message.id)).toBe(-rowStamp())
      // A row that lost its stamp gets it back when written through the adapter.
      db.prepare("UPDATE session SET stamp = NULL WHERE id = ?").run(session.id)
      await storage.write([{ type: "session.put", info: session }])
      expect(stampOf(db, "session", session.id)).toBe(rowStamp())
      await storage.close()
    })

    it("recognises its stamp on a connection that reads integers as bigints", async () => {
      const { db, storage } = open(driver, true)
      const { session, message, part } = await seed(storage)
      db.prepare("UPDATE part SET data = ?, stamp = -stamp WHERE id = ?").run(
        withExtra(db, "part", part.id),
        part.id,
      )
      const read = await readAll(storage, session.id, message.id)
      expect(read.part.extra).toBe("not in the schema")
      expect(read.message).toEqual(message)
      await storage.close()
    })

    it("reads trusted rows exactly as the schema decode would, for every part type", async () => {
      const { db, storage } = open(driver)
      const build = createBuilders()
      const session = build.session({ parentID: undefined })
      const user = build.user(session.id)
      const assistant = build.assistant(session.id, user.id)
      await storage.write([
        { type: "session.put", info: session },
        { type: "message.put", info: user },
        { type: "message.put", info: assistant },
        ...build.everyPart(session.id, assistant.id).map((part) => ({ type: "part.put" as const, part })),
      ])
      const trusted = await storage.listMessages(session.id)
      for (const table of ["session", "message", "part"]) db.prepare(`UPDATE ${table} SET stamp = NULL`).run()
      const validated = await storage.listMessages(session.id)
      expect(trusted).toEqual(validated)
      expect(JSON.stringify(trusted)).toBe(JSON.stringify(validated))
      await storage.close()
    })
  })

  describe(`SqliteStorage on a database from before row stamps (schema version 1), through ${driver}`, () => {
    it("migrates it, validates its unstamped rows, and trusts a row once it is written again", async () => {
      const db = connect(driver)
      db.exec(migrations[0]!)
      db.exec("PRAGMA user_version = 1")
      const build = createBuilders()
      const session = build.session()
      const message = build.user(session.id)
      const part = build.text(session.id, message.id)
      const bad = build.text(session.id, message.id)
      // As version 1 of the adapter wrote them, plus what a careless writer left.
      db.prepare("INSERT INTO session (id, parent_id, data) VALUES (?, NULL, ?)").run(
        session.id,
        JSON.stringify(session),
      )
      db.prepare("INSERT INTO message (session_id, id, data) VALUES (?, ?, ?)").run(
        session.id,
        message.id,
        JSON.stringify({ ...message, extra: "not in the schema" }),
      )
      const insertPart = db.prepare("INSERT INTO part (session_id, message_id, id, data) VALUES (?, ?, ?, ?)")
      insertPart.run(session.id, message.id, part.id, JSON.stringify(part))

      const storage = new SqliteStorage(db)
      expect(Number(firstValue(db, "PRAGMA user_version"))).toBe(LATEST_VERSION)
      expect(stampOf(db, "message", message.id)).toBeNull()
      expect(await storage.listMessages(session.id)).toEqual([{ info: message, parts: [part] }])

      insertPart.run(session.id, message.id, bad.id, JSON.stringify({ ...bad, text: 42 }))
      await expect(storage.listMessages(session.id)).rejects.toSatisfy(corrupt(bad.id))
      await storage.write([
        { type: "part.remove", sessionID: session.id, messageID: message.id, partID: bad.id },
      ])

      await storage.write([{ type: "message.put", info: message }])
      expect(stampOf(db, "message", message.id)).toBe(rowStamp())
      expect(dataOf(db, "message", message.id).extra).toBeUndefined()
      expect(await storage.listMessages(session.id)).toEqual([{ info: message, parts: [part] }])
      await storage.close()
    })
  })

  describe(`SqliteStorage loading a long session, through ${driver}`, () => {
    /** A session whose parts span several pages of the part listing, one message across a page edge. */
    async function longSession(storage: SqliteStorage, partsPerMessage: number[]) {
      const build = createBuilders()
      const session = build.session()
      await storage.write([{ type: "session.put", info: session }])
      const expected: WithParts[] = []
      for (const count of partsPerMessage) {
        const info = build.user(session.id)
        const parts = Array.from({ length: count }, (_, index) =>
          build.text(session.id, info.id, `part ${index}`),
        )
        await storage.write([
          { type: "message.put", info },
          ...parts.map((part) => ({ type: "part.put" as const, part })),
        ])
        expected.push({ info, parts })
      }
      return { session, expected }
    }

    it("reads a session's parts in pages and attaches each to its message, in order", async () => {
      const queries: string[] = []
      const storage = new SqliteStorage(objectsOnly(connect(driver), (sql) => queries.push(sql)))
      // 2,500 parts: pages of 1,000 end inside the second message and inside the fourth.
      const { session, expected } = await longSession(storage, [600, 700, 0, 1_150, 50])
      const read = async (limit?: number) => {
        queries.length = 0
        const loaded = await storage.listMessages(session.id, limit === undefined ? {} : { limit })
        return { loaded, queries: [...queries] }
      }
      const {
        listMessages,
        listNewestMessages,
        listSessionParts,
        listSessionPartsFrom,
        listSessionPartsAfter,
      } = SQL
      // Pages of 1,000, 1,000 and 500 parts.
      expect(await read()).toEqual({
        loaded: expected,
        queries: [listMessages, listSessionParts, listSessionPartsAfter, listSessionPartsAfter],
      })
      // The newest three messages have 1,200 parts; the newest one 50.
      expect(await read(3)).toEqual({
        loaded: expected.slice(2),
        queries: [listNewestMessages, listSessionPartsFrom, listSessionPartsAfter],
      })
      expect(await read(1)).toEqual({
        loaded: expected.slice(4),
        queries: [listNewestMessages, listSessionPartsFrom],
      })
      await storage.close()
    })

    it("reads the pages as arrays the way the driver offers, or from objects", async () => {
      for (const db of [connect(driver), objectsOnly(connect(driver))]) {
        const storage = new SqliteStorage(db)
        const { session, expected } = await longSession(storage, [999, 2, 0, 3])
        expect(await storage.listMessages(session.id)).toEqual(expected)
        expect(await storage.listMessages(session.id, { limit: 2 })).toEqual(expected.slice(2))
        await storage.close()
      }
    })

    it("ends cleanly when the parts fill the last page exactly", async () => {
      const storage = new SqliteStorage(connect(driver))
      const { session, expected } = await longSession(storage, [1_000, 1_000])
      expect(await storage.listMessages(session.id)).toEqual(expected)
      await storage.close()
    })

    it("pages through the parts' primary-key index, without a sort step", async () => {
      const db = connect(driver)
      const storage = new SqliteStorage(db)
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${SQL.listSessionPartsAfter}`)
        .all("x", "x", "x", 1)
        .map((row) => (row as { detail: string }).detail)
        .join("; ")
      expect(plan).not.toMatch(/TEMP B-TREE/)
      expect(plan).toMatch(
        /USING INDEX sqlite_autoindex_part_1 \(session_id=\? AND \(message_id,id\)>\(\?,\?\)\)/,
      )
      await storage.close()
    })
  })
}
