import { randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { NotFoundError, StorageError, type StorageWrite } from "../../src/index.js"
import { type SqliteDatabase, type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { otherDriver, wrappedConnection } from "../fixtures/sqlite-raw.js"
import { LockHolder } from "./fault-helpers.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

const drivers = sqliteDrivers()

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-groups-"))
const holders: LockHolder[] = []
afterAll(() => {
  for (const holder of holders) holder.kill()
  fs.rmSync(directory, { recursive: true, force: true })
})

const newFile = () => path.join(directory, `${randomUUID()}.sqlite`)

/** A connection of `driver` that counts the write transactions begun on it. */
function countingDatabase(
  file: string,
  driver: SqliteDriver,
): { db: SqliteDatabase; transactions: () => number } {
  let begun = 0
  const db = wrappedConnection(file, driver, (sql, statement) => {
    if (sql !== "BEGIN IMMEDIATE") return statement
    return {
      ...statement,
      run: (...params) => {
        begun++
        return statement.run(...params)
      },
    }
  })
  return { db, transactions: () => begun }
}

/** A storage on `file` through `driver`, and no other. */
function storageOn(file: string, driver: SqliteDriver): SqliteStorage {
  const storage = new SqliteStorage(file, { coordinator: false, driver })
  expect(storage.driver).toBe(driver)
  return storage
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

describe.each(drivers)("SqliteStorage write groups on %s", (driver) => {
  it("commits the batches written in one turn of the event loop in one transaction", async () => {
    const counted = countingDatabase(newFile(), driver)
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
    const storage = storageOn(newFile(), driver)
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
    const storage = storageOn(newFile(), driver)
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
    const counted = countingDatabase(file, driver)
    const storage = new SqliteStorage(counted.db, {
      coordinator: false,
      retry: { maxAttempts: 2, maxDelayMs: 10 },
    })
    const { session, user, partWrite } = await withMessage(storage)
    // The lock taken through the other driver, where there is one.
    const holder = new LockHolder(file, "write", { driver: otherDriver(driver, drivers) })
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
    const storage = storageOn(file, driver)
    const { session, user, partWrite } = await withMessage(storage)
    // Two at once: from now on a group waits for the end of the turn, which close() does not.
    await Promise.all([storage.write(partWrite("one")), storage.write(partWrite("two"))])
    const written = storage.write(partWrite("written as it closed"))
    await storage.close()
    await written
    const reopened = storageOn(file, driver)
    expect((await reopened.getMessage(session.id, user.id))?.parts).toHaveLength(3)
    await reopened.close()
  })
})
