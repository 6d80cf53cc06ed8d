// Runtimes in several real processes on one SQLite file (test/fixtures/sqlite-worker.ts).
// AGENTLOOP_SQLITE_COORDINATOR=false runs the workers without a coordinator, as SqliteStorage
// was before it had one: the first test then sees overlapping model calls.
//
// Where both drivers load, each test runs one process on node:sqlite and one on better-sqlite3
// (the roles swapped from one test to the next), so the lease, the locks and the messages between
// processes hold across drivers, and every test runs each driver without running twice.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import {
  type SqliteCoordinatorOptions,
  type SqliteDriver,
  SqliteStorage,
} from "../../src/storage/sqlite/index.js"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { withRaw } from "../fixtures/sqlite-raw.js"
import { runningWorkers, WorkerProcess } from "./worker-process.js"

const { first, second } = driverRoles()

const workerFile = fileURLToPath(new URL("../fixtures/sqlite-worker.ts", import.meta.url))
const directory = mkdtempSync(join(tmpdir(), "agentloop-processes-"))
const coordinatorFromEnv = process.env.AGENTLOOP_SQLITE_COORDINATOR

type Answer = { id: string; texts: string[]; error?: { name: string; data: { message?: string } } }

let files = 0
/** One worker per driver of `on`, in that order, on a new file. */
async function workers(on: SqliteDriver[], coordinator: boolean | SqliteCoordinatorOptions = true) {
  const file = join(directory, `shared-${++files}.db`)
  const overlap = join(directory, `calls-${files}.db`)
  // In WAL mode before any worker opens it: switching a file to WAL needs a lock that SQLite may
  // refuse at once, busy timeout or not, while another worker starting beside it reads the file.
  withRaw(overlap, first, (calls) => {
    calls.exec("PRAGMA journal_mode = WAL")
    calls.exec("CREATE TABLE IF NOT EXISTS call (token TEXT PRIMARY KEY, pid INTEGER NOT NULL)")
  })
  const env = {
    AGENTLOOP_SQLITE_FILE: file,
    AGENTLOOP_SQLITE_OVERLAP: overlap,
    AGENTLOOP_SQLITE_COORDINATOR: coordinatorFromEnv ?? JSON.stringify(coordinator),
  }
  const started = on.map(
    (driver) => new WorkerProcess(workerFile, { ...env, AGENTLOOP_SQLITE_DRIVER: driver }, { stderr: true }),
  )
  await Promise.all(started.map((worker) => worker.until((line) => line.event === "ready")))
  return { file, workers: started }
}

afterAll(() => {
  for (const child of runningWorkers) child.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})

describe(`runtimes in several processes on one SQLite file (${first} and ${second})`, () => {
  it("2 processes × 20 prompts to one session never run two model calls at once", async () => {
    const {
      file,
      workers: [a, b],
    } = await workers([first, second])
    const sessionID = await a!.call<string>("create")
    const prompts = Array.from({ length: 40 }, (_, index) =>
      (index % 2 === 0 ? a! : b!).call<Answer>("prompt", { sessionID, text: `prompt ${index}` }),
    )
    const answers = await Promise.all(prompts)
    for (const answer of answers) expect(answer.texts).toEqual(["ok"])
    expect([...a!.events, ...b!.events].filter((line) => line.event === "overlap")).toEqual([])
    const storage = new SqliteStorage(file, { coordinator: false, driver: second })
    const messages = await storage.listMessages(sessionID)
    expect(messages.filter((message) => message.info.role === "user")).toHaveLength(40)
    expect(messages.at(-1)!.info.role).toBe("assistant")
    await storage.close()
    await Promise.all([a!.close(), b!.close()])
  }, 120_000)

  it("when the owner is killed mid-tool, another process takes the session over once its lease expires", async () => {
    const {
      file,
      workers: [a, b],
    } = await workers([second, first], { leaseMs: 1_000 })
    const sessionID = await a!.call<string>("create")
    void a!.call("prompt", { sessionID, text: "block" }).catch(() => undefined)
    await a!.until((line) => line.event === "tool-started")
    await a!.kill()
    // B's loop waits until the dead owner's lease expires, then closes the cut-off turn as a
    // cancel would (the durability rules) and continues it with a new step.
    const continued = await b!.call<Answer>("loop", { sessionID })
    expect(continued.error).toBeUndefined()
    expect(continued.texts).toEqual(["done"])
    expect((await b!.call<Answer>("prompt", { sessionID, text: "go on" })).texts).toEqual(["ok"])
    const storage = new SqliteStorage(file, { coordinator: false, driver: second })
    const messages = await storage.listMessages(sessionID)
    const cut = messages.find((message) => message.parts.some((part) => part.type === "tool"))
    expect(cut?.info).toMatchObject({
      error: { name: "AbortedError", data: { message: expect.stringContaining("stopped") } },
    })
    expect(cut?.parts.find((part) => part.type === "tool")).toMatchObject({
      tool: "block",
      state: { status: "error", metadata: { interrupted: true } },
    })
    await storage.close()
    await b!.close()
  }, 60_000)

  it("reads in another process are never refused while one runs the session; a cancel there stops it", async () => {
    const {
      workers: [a, b],
    } = await workers([first, second])
    const sessionID = await a!.call<string>("create")
    const running = a!.call<Answer>("prompt", { sessionID, text: "block" })
    await a!.until((line) => line.event === "tool-started")
    for (let round = 0; round < 20; round++) {
      const read = await b!.call<{ messages: number; listed: number; tools: string[] }>("read", { sessionID })
      // A's turn, as A left it so far: B does not repair what the owner is still running.
      expect(read).toMatchObject({ messages: 2, listed: 1, tools: ["running"] })
    }
    await b!.call("cancel", { sessionID })
    expect((await running).error).toMatchObject({ name: "AbortedError" })
    await Promise.all([a!.close(), b!.close()])
  }, 60_000)

  it("a cancel the owner reads seconds late still stops the run it was sent for", async () => {
    const {
      workers: [a, b],
    } = await workers([second, first], { leaseMs: 10_000 })
    const sessionID = await a!.call<string>("create")
    const running = a!.call<Answer>("prompt", { sessionID, text: "block" })
    await a!.until((line) => line.event === "tool-started")
    // A stalls (a loaded machine, a long GC) while B cancels, and reads the cancel 2.5 s late.
    a!.pause()
    try {
      await b!.call("cancel", { sessionID })
      await new Promise((resolve) => setTimeout(resolve, 2_500))
    } finally {
      a!.resume()
    }
    const stopped = await Promise.race([
      running,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 10_000)),
    ])
    expect(stopped).toMatchObject({ error: { name: "AbortedError" } })
    await Promise.all([a!.close(), b!.close()])
  }, 60_000)

  it("a permission asked in one process is answered in another, and the run goes on", async () => {
    const {
      workers: [a, b],
    } = await workers([first, second])
    const sessionID = await a!.call<string>("create")
    const answer = a!.call<Answer>("prompt", { sessionID, text: "ask" })
    // Events stay in their process: A says what it asked, and B answers it through the file.
    const asked = await a!.until((line) => line.event === "asked")
    await b!.call("reply", { requestID: asked.requestID })
    expect((await answer).texts).toEqual(["done"])
    await Promise.all([a!.close(), b!.close()])
  }, 60_000)
})
