import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { CoordinatorMessage } from "../../src/coordination/port.js"
import { InvalidInputError } from "../../src/index.js"
import {
  type SqliteCoordinator,
  type SqliteCoordinatorOptions,
  SqliteStorage,
} from "../../src/storage/sqlite/index.js"
import { currentOwner, type LeaseOwner } from "../../src/storage/sqlite/lease-owner.js"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { openRaw, type RawDatabase, withRaw } from "../fixtures/sqlite-raw.js"

const { drivers } = driverRoles()

// The whole file on each driver. The rows and locks of "another process" are made in this process,
// so with the same driver: two SQLite libraries in one process do not see each other's locks (POSIX
// locks are per process), and the one closing last deletes the WAL the other still writes to
// (sqlite.org/howtocorrupt.html, 2.2.1). Processes on different drivers share a file in
// sqlite-processes.test.ts and test/e2e/killed-owner.test.ts.
describe.each(drivers)("on %s", (driver) => {
  let directory: string
  let file: string
  const opened: SqliteStorage[] = []

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "agentloop-coordinator-"))
    file = join(directory, "shared.db")
  })

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((storage) => storage.close()))
    rmSync(directory, { recursive: true, force: true })
  })

  /** The coordinator of one more SqliteStorage on the file: another process, as far as it can tell. */
  function processOnFile(coordinator: SqliteCoordinatorOptions = {}): SqliteCoordinator {
    const storage = onDriver(new SqliteStorage(file, { coordinator, driver }))
    opened.push(storage)
    return storage.coordinator!
  }

  function onDriver(storage: SqliteStorage): SqliteStorage {
    expect(storage.driver).toBe(driver)
    return storage
  }

  function leaseRow(sessionID: string) {
    return onFile((db) =>
      db.get<{ owner: string; token: string; expires_at: number }>(
        "SELECT owner, token, expires_at FROM lease WHERE session_id = ?",
        sessionID,
      ),
    )
  }

  /** The owner a coordinator in the process `pid` of this machine would write. */
  function currentOwnerOf(pid: number): LeaseOwner {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
    return { ...currentOwner(), pid, started }
  }

  function onFile<T>(body: (db: RawDatabase) => T): T {
    return withRaw(file, driver, body)
  }

  describe("SqliteCoordinator.claim", () => {
    it("lets one coordinator on the file hold a session at a time, this one's other claims included", async () => {
      const a = processOnFile()
      const b = processOnFile()
      const lease = await a.claim("ses_1", { wait: false })
      expect(lease).toBeDefined()
      expect(await b.claim("ses_1", { wait: false })).toBeUndefined()
      expect(await a.claim("ses_1", { wait: false })).toBeUndefined()
      expect(await b.claim("ses_2", { wait: false })).toBeDefined()
      await lease!.release()
      expect(leaseRow("ses_1")).toBeUndefined()
      expect(await b.claim("ses_1", { wait: false })).toBeDefined()
    })

    it("waits for a lease until its holder releases it, or until the signal aborts", async () => {
      const a = processOnFile()
      const b = processOnFile()
      const held = await a.claim("ses_1", { wait: true })
      const stop = new AbortController()
      const given = b.claim("ses_1", { wait: true, signal: stop.signal })
      stop.abort()
      expect(await given).toBeUndefined()
      const waiting = b.claim("ses_1", { wait: true })
      await held!.release()
      const taken = await waiting
      expect(taken).toBeDefined()
      expect(taken!.lost.aborted).toBe(false)
    })

    it("renews a held lease, so that it outlives its TTL", async () => {
      const a = processOnFile({ leaseMs: 1_000 })
      const lease = await a.claim("ses_1", { wait: false })
      const first = leaseRow("ses_1")!.expires_at
      await vi.waitFor(() => expect(leaseRow("ses_1")!.expires_at).toBeGreaterThan(first + 1_000), {
        timeout: 5_000,
        interval: 20,
      })
      expect(lease!.lost.aborted).toBe(false)
      expect(await processOnFile().claim("ses_1", { wait: false })).toBeUndefined()
    })

    it("takes over the lease of a process that stopped renewing once it expires", async () => {
      const a = processOnFile()
      const expiresAt = Date.now() + 300
      // What a killed process leaves: its row, which nobody renews.
      onFile((db) =>
        db.run(
          "INSERT INTO lease (session_id, owner, token, expires_at) VALUES (?, ?, ?, ?)",
          "ses_1",
          "dead",
          "t",
          expiresAt,
        ),
      )
      expect(await a.claim("ses_1", { wait: false })).toBeUndefined()
      const lease = await a.claim("ses_1", { wait: true })
      expect(lease).toBeDefined()
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
      expect(leaseRow("ses_1")!.owner).not.toBe("dead")
    })

    describe("the lease of a process on this machine", () => {
      /**
       * What a process left: its row, as its coordinator wrote it, valid for a minute more. Returns
       * the coordinator of another process on the file, which made the file's tables.
       */
      function leftBy(owner: LeaseOwner | string): SqliteCoordinator {
        const claimer = processOnFile()
        onFile((db) =>
          db.run(
            "INSERT INTO lease (session_id, owner, token, expires_at) VALUES (?, ?, ?, ?)",
            "ses_1",
            typeof owner === "string" ? owner : JSON.stringify(owner),
            "t",
            Date.now() + 60_000,
          ),
        )
        return claimer
      }
      const here = currentOwner()

      it("is taken at once when that process is gone", async () => {
        const child = spawn(process.execPath, ["-e", ""])
        await new Promise((resolve) => child.once("exit", resolve))
        const claimer = leftBy({ ...here, id: "dead", pid: child.pid! })
        expect(await claimer.claim("ses_1", { wait: false })).toBeDefined()
        expect(leaseRow("ses_1")!.owner).not.toContain('"dead"')
      })

      it("is taken at once when its PID now belongs to a process that started later", async () => {
        const claimer = leftBy({ ...here, id: "dead", pid: process.pid, started: "1" })
        expect(await claimer.claim("ses_1", { wait: false })).toBeDefined()
      })

      it("is respected while that process lives, a stopped one included", async () => {
        const child = spawn("sleep", ["30"])
        try {
          await new Promise((resolve) => child.once("spawn", resolve))
          child.kill("SIGSTOP")
          const claimer = leftBy({ ...currentOwnerOf(child.pid!), id: "alive" })
          expect(await claimer.claim("ses_1", { wait: false })).toBeUndefined()
        } finally {
          child.kill("SIGKILL")
        }
      })

      it("is respected until it expires when nothing proves its process gone", async () => {
        const child = spawn(process.execPath, ["-e", ""])
        await new Promise((resolve) => child.once("exit", resolve))
        // Another machine (or PID namespace) with the same PID, and an owner an older agentloop wrote.
        const claimer = leftBy({ ...here, id: "elsewhere", machine: "another machine", pid: child.pid! })
        expect(await claimer.claim("ses_1", { wait: false })).toBeUndefined()
        onFile((db) => db.run("UPDATE lease SET owner = 'a-bare-uuid'"))
        expect(await claimer.claim("ses_1", { wait: false })).toBeUndefined()
      })
    })

    it("aborts lease.lost when another process took the lease", async () => {
      const a = processOnFile({ leaseMs: 200 })
      const lease = await a.claim("ses_1", { wait: false })
      onFile((db) => db.run("UPDATE lease SET owner = 'thief', token = 'x'"))
      await vi.waitFor(() => expect(lease!.lost.aborted).toBe(true), { timeout: 5_000, interval: 20 })
      // Its release leaves the thief's lease alone.
      await lease!.release()
      expect(leaseRow("ses_1")!.owner).toBe("thief")
    })

    it("aborts lease.lost before the lease expires when the file stays locked past it", async () => {
      const a = processOnFile({ leaseMs: 300 })
      const lease = await a.claim("ses_1", { wait: false })
      const expiresAt = leaseRow("ses_1")!.expires_at
      // When the loss was signalled, not when the test looked: a loaded machine looks late.
      let lostAt = Number.POSITIVE_INFINITY
      lease!.lost.addEventListener("abort", () => {
        lostAt = Date.now()
      })
      const holder = openRaw(file, driver)
      holder.exec("BEGIN IMMEDIATE")
      try {
        await vi.waitFor(() => expect(lease!.lost.aborted).toBe(true), { timeout: 5_000, interval: 10 })
        expect(lostAt).toBeLessThan(expiresAt + 300)
      } finally {
        holder.exec("COMMIT")
        holder.close()
      }
    })

    it("ends waiting claims and frees held leases on close", async () => {
      const storage = onDriver(new SqliteStorage(file, { driver }))
      const other = processOnFile()
      const lease = await storage.coordinator!.claim("ses_1", { wait: false })
      const waiting = storage.coordinator!.claim("ses_1", { wait: true })
      await storage.close()
      expect(await waiting).toBeUndefined()
      expect(lease!.lost.aborted).toBe(true)
      expect(leaseRow("ses_1")).toBeUndefined()
      expect(await other.claim("ses_1", { wait: false })).toBeDefined()
    })
  })

  describe("SqliteCoordinator.publish", () => {
    it("delivers prompts, cancels and answers to the other processes in order, never back; events stay here", async () => {
      const a = processOnFile({ pollMs: 10 })
      const b = processOnFile({ pollMs: 10 })
      const heardByA: CoordinatorMessage[] = []
      const heardByB: CoordinatorMessage[] = []
      a.subscribe((message) => heardByA.push(message))
      b.subscribe((message) => heardByB.push(message))
      await Promise.all([a.listening(), b.listening()])
      const sent: CoordinatorMessage[] = [
        { type: "prompt", sessionID: "ses_1", messageID: "msg_1" },
        { type: "cancel", sessionID: "ses_1" },
        { type: "question.reject", sessionID: "ses_1", requestID: "que_1" },
      ]
      await a.publish({ type: "event", event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
      for (const message of sent) void a.publish(message)
      await vi.waitFor(() => expect(heardByB).toHaveLength(3), { timeout: 5_000, interval: 10 })
      expect(heardByB).toEqual([sent[0], { ...sent[1], sentAt: expect.any(Number) }, sent[2]])
      expect(heardByA).toEqual([])
      expect(onFile((db) => db.value("SELECT count(*) FROM coordinator_message"))).toBe(3)
    })

    it("delivers a cancel read late with when it was sent: it stops only what started before", async () => {
      const a = processOnFile({ pollMs: 10 })
      const heard: CoordinatorMessage[] = []
      a.subscribe((message) => heard.push(message))
      await a.listening()
      const stale = Date.now() - 10_000
      const put = (message: CoordinatorMessage, created: number) =>
        onFile((db) =>
          db.run(
            "INSERT INTO coordinator_message (origin, payload, created) VALUES ('other', ?, ?)",
            JSON.stringify(message),
            created,
          ),
        )
      put({ type: "cancel", sessionID: "ses_1" }, stale)
      put({ type: "prompt", sessionID: "ses_1", messageID: "msg_1" }, stale)
      put({ type: "cancel", sessionID: "ses_2" }, Date.now())
      await vi.waitFor(() => expect(heard).toHaveLength(3), { timeout: 5_000, interval: 10 })
      expect(heard).toEqual([
        { type: "cancel", sessionID: "ses_1", sentAt: stale },
        { type: "prompt", sessionID: "ses_1", messageID: "msg_1" },
        { type: "cancel", sessionID: "ses_2", sentAt: expect.any(Number) },
      ])
    })

    it("deletes messages older than a minute when it stores one", async () => {
      const a = processOnFile()
      onFile((db) =>
        db.run(
          "INSERT INTO coordinator_message (origin, payload, created) VALUES ('x', '{}', ?)",
          Date.now() - 120_000,
        ),
      )
      await a.publish({ type: "cancel", sessionID: "ses_1" })
      expect(
        onFile((db) =>
          db.all<{ origin: string }>("SELECT origin FROM coordinator_message").map((row) => row.origin),
        ),
      ).toEqual([expect.not.stringMatching(/^x$/)])
    })
  })

  describe("SqliteStorage's coordinator option", () => {
    it("gives a file a coordinator by default, and none to ':memory:' or with coordinator: false", async () => {
      const storages = [
        new SqliteStorage(file, { driver }),
        new SqliteStorage(":memory:", { driver }),
        new SqliteStorage(file, { coordinator: false, driver }),
      ]
      opened.push(...storages)
      expect(storages.map((storage) => storage.coordinator !== undefined)).toEqual([true, false, false])
      const memory = new SqliteStorage(":memory:", { coordinator: true, driver })
      opened.push(memory)
      expect(memory.coordinator).toBeDefined()
    })

    it("refuses malformed options with InvalidInputError naming them", () => {
      expect(
        () => new SqliteStorage(file, { coordinator: { leaseMs: 1_000, renewMs: 600 }, driver }),
      ).toThrow(
        expect.objectContaining({
          name: InvalidInputError.errorName,
          message: expect.stringContaining("coordinator.renewMs"),
        }),
      )
      expect(() => new SqliteStorage(file, { coordinator: { leaseMs: 5 }, driver })).toThrow(
        InvalidInputError,
      )
    })
  })
})
