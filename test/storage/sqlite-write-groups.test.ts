import { randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import Database from "better-sqlite3"
import { afterAll, describe, expect, it } from "vitest"
import { NotFoundError, StorageError, type StorageWrite } from "../../src/index.js"
import { type SqliteDatabase, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { LockHolder } from "./fault-helpers.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-groups-"))
const holders: LockHolder[] = []
afterAll(() => {
  for (const holder of holders) holder.kill()
  fs.rmSync(directory, { recursive: true, force: true })
})

const newFile = () => path.join(directory, `${randomUUID()}.sqlite`)

/** A better-sqlite3 connection that counts the write transactions begun on it. */
function countingDatabase(file: string): { db: SqliteDatabase; transactions: () => number } {
  const db = new Database(file)
  let begun = 0
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    const statement = prepare(sql)
    if (sql !== "BEGIN IMMEDIATE") return statement
    const run = statement.run.bind(statement)
    statement.run = ((...params: never[]) => {
      begun++
      return run(...params)
    }) as typeof statement.run
    return statement
  }) as typeof db.prepare
  return { db: db as unknown as SqliteDatabase, transactions: () => begun }
}

/** A stored session with one user message, and a builder of text-part writes for it. */
async function withMessage(storage: SqliteStorage) {
  const builders = createBuilders()
  const session = builders.session()
  const user = builders.user(session.id)
  await storage.write([
    { type: "session.put", info: session },
    { type: "message.put", info: user },
  ])
  const partWrite = (text: string): StorageWrite[] => [
    { type: "part.put", part: builders.text(session.id, user.id, text) },
  ]
  return { builders, session, user, partWrite }
}

describe("SqliteStorage write groups", () => {
  it("commits the batches written in one turn of the event loop in one transaction", async () => {
    const counted = countingDatabase(newFile())
    const storage = new SqliteStorage(counted.db, { coordinator: false })
    const { session, user, partWrite } = await withMessage(storage)
    const before = counted.transactions()
    await Promise.all(Array.from({ length: 50 }, (_, index) => storage.write(partWrite(`part ${index}`))))
    expect(counted.transactions() - before).toBe(1)
    const stored = await storage.getMessage(session.id, user.id)
    expect(stored?.parts.map((part) => (part.type === "text" ? part.text : ""))).toEqual(
      Array.from({ length: 50 }, (_, index) => `part ${index}`),
    )
    await storage.close()
  })

  it("commits a writer's batch without waiting for the end of the turn while it writes alone", async () => {
    const storage = new SqliteStorage(newFile(), { coordinator: false })
    const { partWrite } = await withMessage(storage)
    for (let index = 0; index < 3; index++) {
      let turnEnded = false
      setImmediate(() => {
        turnEnded = true
      })
      await storage.write(partWrite(`alone ${index}`))
      expect(turnEnded).toBe(false)
    }
    await storage.close()
  })

  it("fails only the batch at fault when one of a group fails on its own account", async () => {
    const storage = new SqliteStorage(newFile(), { coordinator: false })
    const { builders, session, user, partWrite } = await withMessage(storage)
    const orphan: StorageWrite[] = [
      { type: "part.put", part: builders.text(session.id, builders.user(session.id).id) },
    ]
    const settled = await Promise.allSettled([
      storage.write(partWrite("first")),
      storage.write(orphan),
      storage.write(partWrite("last")),
    ])
    expect(settled.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"])
    expect(NotFoundError.isInstance((settled[1] as PromiseRejectedResult).reason)).toBe(true)
    const stored = await storage.getMessage(session.id, user.id)
    expect(stored?.parts.map((part) => (part.type === "text" ? part.text : ""))).toEqual(["first", "last"])
    await storage.close()
  })

  it("fails every batch of a group with the lock another process held past the retries, at once", async () => {
    const file = newFile()
    const counted = countingDatabase(file)
    const storage = new SqliteStorage(counted.db, {
      coordinator: false,
      retry: { maxAttempts: 2, maxDelayMs: 10 },
    })
    const { session, user, partWrite } = await withMessage(storage)
    const holder = new LockHolder(file, "write")
    holders.push(holder)
    await holder.locked()
    const before = counted.transactions()
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) => storage.write(partWrite(`locked ${index}`))),
    )
    // The group's three attempts, not three more for each batch.
    expect(counted.transactions() - before).toBe(3)
    for (const result of settled) {
      expect(result.status).toBe("rejected")
      const error = (result as PromiseRejectedResult).reason
      expect(StorageError.isInstance(error) && error.data).toMatchObject({ reason: "busy", attempts: 3 })
    }
    await holder.release()
    await storage.write(partWrite("after"))
    const stored = await storage.getMessage(session.id, user.id)
    expect(stored?.parts.map((part) => (part.type === "text" ? part.text : ""))).toEqual(["after"])
    await storage.close()
  }, 20_000)

  it("commits what was written before close() before it closes", async () => {
    const file = newFile()
    const storage = new SqliteStorage(file, { coordinator: false })
    const { session, user, partWrite } = await withMessage(storage)
    // Two at once: from now on a group waits for the end of the turn, which close() does not.
    await Promise.all([storage.write(partWrite("one")), storage.write(partWrite("two"))])
    const written = storage.write(partWrite("written as it closed"))
    await storage.close()
    await written
    const reopened = new SqliteStorage(file, { coordinator: false })
    expect((await reopened.getMessage(session.id, user.id))?.parts).toHaveLength(3)
    await reopened.close()
  })
})
