import { execFileSync, spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { InvalidInputError, StorageError } from "../../src/index.js"
import { type SqliteDatabase, type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { otherDriver, withRaw, wrappedConnection } from "../fixtures/sqlite-raw.js"
import { fillDisk, LockHolder, stallProbe } from "./fault-helpers.js"

// Every test runs on each driver. The lock another process holds is taken through the other driver
// where there is one (SQLite's locks are the file's, whichever driver takes them); what this
// process reads beside the storage it reads with the storage's driver (see sqlite-raw.ts).
const { drivers } = driverRoles()

const adapterFile = fileURLToPath(new URL("../../src/storage/sqlite/index.ts", import.meta.url))
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-sqlite-faults-"))
const holders: LockHolder[] = []
afterAll(() => {
  for (const holder of holders) holder.kill()
  if (mounted) spawnSync("umount", ["-l", mountPoint])
  fs.rmSync(directory, { recursive: true, force: true })
})

/** A database file in WAL mode, closed again, so that the child's lock is the only one about. */
function newDatabase(driver: SqliteDriver): string {
  const file = path.join(directory, `${randomUUID()}.sqlite`)
  withRaw(file, driver, (db) => db.exec("PRAGMA journal_mode = WAL"))
  return file
}

/** SqliteStorage on `file` through `driver`, and no other. */
function storageOn(file: string, driver: SqliteDriver, options: { retry?: object } = {}): SqliteStorage {
  const storage = new SqliteStorage(file, { ...options, driver })
  expect(storage.driver).toBe(driver)
  return storage
}

async function holdLock(
  file: string,
  mode: "write" | "exclusive",
  driver: SqliteDriver,
  holdMs?: number,
): Promise<LockHolder> {
  const holder = new LockHolder(file, mode, {
    driver: otherDriver(driver, drivers),
    ...(holdMs === undefined ? {} : { holdMs }),
  })
  holders.push(holder)
  await holder.locked()
  return holder
}

function storedValue(file: string, key: string, driver: SqliteDriver): unknown {
  const row = withRaw(file, driver, (db) =>
    db.get<{ value: string }>("SELECT value FROM kv WHERE key = ?", key),
  )
  return row && JSON.parse(row.value)
}

/**
 * What `driver` throws for SQLite's result code `code` (number `errcode`): better-sqlite3 a
 * SqliteError naming the code, node:sqlite an Error with the number (extended where SQLite has one).
 */
function driverError(driver: SqliteDriver, code: string, errcode: number): Record<string, unknown> {
  return driver === "better-sqlite3" ? { name: "SqliteError", code } : { code: "ERR_SQLITE_ERROR", errcode }
}

/** An error as `driver` throws it, for a connection that injects faults. */
function injected(driver: SqliteDriver, code: string, errcode: number, message: string): Error {
  return Object.assign(new Error(message), driverError(driver, code, errcode), { errstr: message })
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to fail"),
    (error: unknown) => error,
  )
}

// The event loop must keep running while a write waits (SQLite itself never waits: its
// busy_timeout is 0). Before, one write blocked it 5 s; a wait that blocked would stall it for the
// whole 3 s hold. 1 s leaves room for a machine busy with other processes (CI saw 615 ms there).
const STALL_LIMIT_MS = 1_000
const HOLD_MS = 3_000

describe.each(drivers)("SqliteStorage on %s with another process holding the write lock", (driver) => {
  it("waits without blocking the event loop, and writes once the lock is released", async () => {
    const file = newDatabase(driver)
    const storage = storageOn(file, driver)
    await holdLock(file, "write", driver, HOLD_MS)
    const probe = stallProbe()
    await storage.write([{ type: "value.put", key: "after-lock", value: 1 }])
    expect(probe.stop()).toBeLessThan(STALL_LIMIT_MS)
    expect(storedValue(file, "after-lock", driver)).toBe(1)
    await storage.close()
  }, 20_000)

  it("gives up after its retry bound with a retryable StorageError of reason busy, writing nothing", async () => {
    const file = newDatabase(driver)
    const storage = storageOn(file, driver, { retry: { maxAttempts: 3, maxDelayMs: 20 } })
    const holder = await holdLock(file, "write", driver)
    const probe = stallProbe()
    const error = await rejection(storage.write([{ type: "value.put", key: "never", value: 1 }]))
    expect(probe.stop()).toBeLessThan(STALL_LIMIT_MS)
    expect(StorageError.isInstance(error)).toBe(true)
    expect((error as StorageError).data).toMatchObject({
      reason: "busy",
      retryable: true,
      code: "SQLITE_BUSY",
      attempts: 4,
    })
    expect((error as StorageError).cause).toMatchObject(driverError(driver, "SQLITE_BUSY", 5))
    await holder.release()
    expect(storedValue(file, "never", driver)).toBeUndefined()
    // The connection is not left inside a transaction: the next write goes through.
    await storage.write([{ type: "value.put", key: "later", value: 2 }])
    expect(storedValue(file, "later", driver)).toBe(2)
    await storage.close()
  }, 20_000)

  // In WAL mode another process cannot lock readers out while this connection is open, so the
  // real lock is taken before the storage opens: opening, the first read and the first write wait.
  it("opens a file another process holds exclusively without blocking, and reads and writes once it can", async () => {
    const file = newDatabase(driver)
    const first = storageOn(file, driver)
    await first.write([{ type: "value.put", key: "before", value: "kept" }])
    await first.close()
    await holdLock(file, "exclusive", driver, HOLD_MS)
    const probe = stallProbe()
    const storage = storageOn(file, driver)
    expect(await storage.listValues("")).toEqual([{ key: "before", value: "kept" }])
    const session = createBuilders().session()
    await storage.write([{ type: "session.put", info: session }])
    expect(probe.stop()).toBeLessThan(STALL_LIMIT_MS)
    expect(await storage.getSession(session.id)).toEqual(session)
    await storage.close()
  }, 20_000)

  it("retries a read that meets SQLITE_BUSY (injected: a WAL reader's busy moments are too brief to stage)", async () => {
    let busy = 0
    const connection = wrappedConnection(newDatabase(driver), driver, (sql, statement) => {
      if (!/^\s*SELECT/i.test(sql)) return statement
      return {
        ...statement,
        get: (...params) => {
          if (busy > 0 && busy--) throw injected(driver, "SQLITE_BUSY", 5, "database is locked")
          return statement.get(...params)
        },
      }
    })
    const storage = new SqliteStorage(connection, { retry: { maxAttempts: 5, maxDelayMs: 10 } })
    await storage.write([{ type: "value.put", key: "k", value: 1 }])
    busy = 3
    expect(await storage.getValue("k")).toBe(1)
    expect(busy).toBe(0)
    busy = 10
    const error = await rejection(storage.getValue("k"))
    expect((error as StorageError).data).toMatchObject({ reason: "busy", retryable: true, attempts: 6 })
    await storage.close()
  })
})

describe.each(drivers)("SqliteStorage faults on %s", (driver) => {
  it("reports a file that is not a database as a StorageError of reason corrupt", () => {
    const file = path.join(directory, `${randomUUID()}.sqlite`)
    fs.writeFileSync(file, Buffer.alloc(8192, 7))
    const error = (() => {
      try {
        new SqliteStorage(file, { driver })
      } catch (caught) {
        return caught
      }
    })()
    expect(StorageError.isInstance(error)).toBe(true)
    expect((error as StorageError).data).toMatchObject({
      reason: "corrupt",
      retryable: false,
      code: "SQLITE_NOTADB",
    })
  })

  it.skipIf(process.platform === "win32")(
    "reports a write the file system refuses (a real RLIMIT_FSIZE in a child) as reason io",
    () => {
      const file = newDatabase(driver)
      const script = `
      import { SqliteStorage } from ${JSON.stringify(adapterFile)}
      process.on("SIGXFSZ", () => {})
      const storage = new SqliteStorage(${JSON.stringify(file)}, { driver: ${JSON.stringify(driver)} })
      if (storage.driver !== ${JSON.stringify(driver)}) throw new Error("opened with " + storage.driver)
      const failed = await storage.write([{ type: "value.put", key: "big", value: "x".repeat(4_000_000) }])
        .then(() => ({ ok: true }), (error) => ({
          name: error.name,
          data: error.data,
          cause: { name: error.cause?.name, code: error.cause?.code, errcode: error.cause?.errcode },
        }))
      await storage.write([{ type: "value.put", key: "small", value: 1 }])
      console.log(JSON.stringify({ failed, small: await storage.getValue("small") }))
      await storage.close()
    `
      // A 2 MB file size limit: the 4 MB write fails with EFBIG, which SQLite reports as an I/O error.
      const limited = 'ulimit -f 2048; exec "$0" --import tsx --input-type=module -e "$1"'
      const out = execFileSync("bash", ["-c", limited, process.execPath, script], { encoding: "utf8" })
      const result = JSON.parse(out.trim().split("\n").at(-1)!)
      // The same code on either driver: node:sqlite gives the extended code's number (778), named here.
      expect(result.failed).toMatchObject({
        name: "StorageError",
        data: { reason: "io", retryable: false, code: "SQLITE_IOERR_WRITE" },
        cause: driverError(driver, "SQLITE_IOERR_WRITE", 778),
      })
      expect(result.small).toBe(1)
    },
    20_000,
  )

  it("rejects calls after close() with a StorageError of reason closed", async () => {
    const storage = storageOn(newDatabase(driver), driver)
    await storage.close()
    const error = await rejection(storage.getValue("k"))
    expect(StorageError.isInstance(error)).toBe(true)
    expect((error as StorageError).data).toMatchObject({ reason: "closed", retryable: false })
  })

  it("refuses retry options that are not whole numbers, naming the option", () => {
    for (const retry of [
      { maxAttempts: -1 },
      { maxAttempts: 1.5 },
      { maxDelayMs: Number.NaN },
      { tries: 3 },
    ]) {
      const error = (() => {
        try {
          new SqliteStorage(":memory:", { retry, driver } as never)
        } catch (caught) {
          return caught
        }
      })()
      expect(InvalidInputError.isInstance(error), JSON.stringify(retry)).toBe(true)
      expect((error as InvalidInputError).data.issues[0]!.path).toMatch(/^retry/)
    }
  })
})

// A real full file system: a 2 MB tmpfs mounted for this test, when this process may mount
// one (root with CAP_SYS_ADMIN); otherwise a connection whose statements fail as SQLite does on
// a full disk, and the test's name says so.
const mountPoint = path.join(directory, "tmpfs")
const mounted = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false
  fs.mkdirSync(mountPoint)
  return spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]).status === 0
})()

type Disk = { storage: SqliteStorage; fill(): void; free(): void; remove(): void }

/** The tmpfs, with one driver's database on it; `remove` leaves the room to the next driver's test. */
function tmpfsDisk(driver: SqliteDriver): Disk {
  const filler = path.join(mountPoint, "filler")
  const file = path.join(mountPoint, "full.sqlite")
  return {
    storage: storageOn(file, driver),
    fill: () => fillDisk(filler),
    free: () => fs.rmSync(filler),
    remove: () => {
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true })
    },
  }
}

/** A connection of `driver` whose writes fail with SQLITE_FULL, as that driver reports it, while the disk is "full". */
function injectedDisk(driver: SqliteDriver): Disk {
  let full = false
  const connection: SqliteDatabase = wrappedConnection(
    path.join(directory, `${randomUUID()}.sqlite`),
    driver,
    (sql, statement) => {
      if (/^\s*SELECT/i.test(sql)) return statement
      return {
        ...statement,
        run: (...params) => {
          if (full) throw injected(driver, "SQLITE_FULL", 13, "database or disk is full")
          return statement.run(...params)
        },
      }
    },
  )
  return {
    storage: new SqliteStorage(connection),
    fill: () => {
      full = true
    },
    free: () => {
      full = false
    },
    remove: () => {},
  }
}

describe.each(drivers)(
  `SqliteStorage on %s on a full disk (${mounted ? "a real 2 MB tmpfs" : "fault-injecting connection: cannot mount a tmpfs here"})`,
  (driver) => {
    it("fails a write with a StorageError of reason full, keeps what was written, and writes again once there is room", async () => {
      const { storage, fill, free, remove } = mounted ? tmpfsDisk(driver) : injectedDisk(driver)
      const session = createBuilders().session()
      await storage.write([
        { type: "session.put", info: session },
        { type: "value.put", key: "acknowledged", value: "before the disk filled" },
      ])
      // Fill what is left, then ask for more than any page SQLite may have kept free.
      fill()
      const big = "x".repeat(512 * 1024)
      const error = await rejection(storage.write([{ type: "value.put", key: "big", value: big }]))
      expect(StorageError.isInstance(error)).toBe(true)
      expect((error as StorageError).data).toMatchObject({ reason: "full", retryable: false, attempts: 1 })
      expect((error as StorageError).cause).toMatchObject(driverError(driver, "SQLITE_FULL", 13))
      expect(await storage.getSession(session.id)).toEqual(session)
      expect(await storage.getValue("acknowledged")).toBe("before the disk filled")
      expect(await storage.getValue("big")).toBeUndefined()

      free()
      await storage.write([{ type: "value.put", key: "big", value: big }])
      expect(await storage.getValue("big")).toBe(big)
      await storage.close()
      remove()
    }, 20_000)
  },
)
