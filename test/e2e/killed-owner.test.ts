// A real process (test/fixtures/sqlite-worker.ts) runs a SQLite session and is killed with
// SIGKILL mid-permission; this process, a new runtime on the same file, then carries on with it.
// Where both drivers load, the worker and this process use different ones, swapped from one test
// to the next: each driver is both the owner that dies and the process that carries on.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { createProvider, createRuntime, type MessageV2, Permission, Tool } from "../../src/index.js"
import { type SqliteDriver, SqliteStorage } from "../../src/storage/sqlite/index.js"
import { say, scriptedModel, testModelInfo } from "../../src/testing/index.js"
import { driverRoles } from "../fixtures/sqlite-driver-roles.js"
import { withRaw } from "../fixtures/sqlite-raw.js"
import { runningWorkers, WorkerProcess } from "../storage/worker-process.js"

const { first, second } = driverRoles()
/** The worker's driver, and this process's. */
type Roles = { owner: SqliteDriver; here: SqliteDriver }
const ROLES: Roles[] = [
  { owner: first, here: second },
  { owner: second, here: first },
]

const workerFile = fileURLToPath(new URL("../fixtures/sqlite-worker.ts", import.meta.url))
const directory = mkdtempSync(join(tmpdir(), "agentloop-killed-owner-"))
const closing: (() => Promise<void>)[] = []

afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()))
})

afterAll(() => {
  for (const child of runningWorkers) child.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})

let files = 0

/** A worker process on `driver` and a new file, with the default lease (10 s) unless told otherwise. */
async function owner(driver: SqliteDriver, coordinator: object = {}) {
  const file = join(directory, `shared-${++files}.db`)
  withRaw(join(directory, `calls-${files}.db`), driver, (calls) => {
    calls.exec("PRAGMA journal_mode = WAL")
    calls.exec("CREATE TABLE IF NOT EXISTS call (token TEXT PRIMARY KEY, pid INTEGER NOT NULL)")
  })
  const worker = new WorkerProcess(workerFile, {
    AGENTLOOP_SQLITE_FILE: file,
    AGENTLOOP_SQLITE_DRIVER: driver,
    AGENTLOOP_SQLITE_OVERLAP: join(directory, `calls-${files}.db`),
    AGENTLOOP_SQLITE_COORDINATOR: JSON.stringify(coordinator),
  })
  await worker.until((line) => line.event === "ready")
  return { file, worker }
}

/** The worker's session, stopped by SIGKILL while its `gate` tool waits for a permission reply. */
async function killedMidPermission(driver: SqliteDriver, coordinator: object = {}) {
  const { file, worker } = await owner(driver, coordinator)
  const sessionID = await worker.call<string>("create")
  void worker.call("prompt", { sessionID, text: "ask" }).catch(() => undefined)
  const asked = await worker.until((line) => line.event === "asked")
  await worker.kill()
  return { file, sessionID, requestID: asked.requestID as string }
}

/** This process's runtime on the file, with the worker's model and tools (see worker-runtime.ts). */
function runtimeOn(file: string, driver: SqliteDriver, coordinator: object = {}) {
  const runs = { gate: 0 }
  const model = scriptedModel([], {
    fallback: (call) => {
      const last = call.prompt.at(-1)!
      if (last.role === "tool") return [say.text("done")]
      return JSON.stringify(last.content).includes("ask") ? [say.toolCall("gate", {})] : [say.text("ok")]
    },
  })
  const gate = Tool.define("gate", {
    description: "Asks first",
    parameters: z.object({}),
    async execute(_, context) {
      await context.ask({ permission: "gate", patterns: ["*"] })
      runs.gate++
      return { title: "", output: "through the gate", metadata: {} }
    },
  })
  const ref = { providerID: testModelInfo.providerID, modelID: testModelInfo.id }
  const runtime = createRuntime({
    provider: createProvider({ models: [{ ...ref, language: model, info: testModelInfo }], default: ref }),
    storage: new SqliteStorage(file, { coordinator, driver }),
    tools: [gate],
    permission: Permission.fromConfig({ gate: "ask" }),
    titles: false,
  })
  closing.push(() => runtime.close())
  return { runtime, runs, model }
}

const texts = (message: MessageV2.WithParts | undefined) =>
  message?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])) ?? []

/** The stored session as a glance: the gate call's status and the last message's text. */
async function glance(file: string, sessionID: string, driver: SqliteDriver) {
  const storage = new SqliteStorage(file, { coordinator: false, driver })
  try {
    const messages = await storage.listMessages(sessionID)
    const gate = messages.flatMap((message) => message.parts).find((part) => part.type === "tool")
    return {
      gate: gate?.type === "tool" ? gate.state.status : undefined,
      last: texts(messages.at(-1)),
      requests: (await storage.listValues("permission/pending/")).length,
    }
  } finally {
    await storage.close()
  }
}

describe("a SQLite session whose process was killed (SIGKILL) mid-permission", () => {
  const [one, two] = ROLES as [Roles, Roles]
  it(`a reply in the new process runs the tool and finishes the turn by itself, without waiting for the lease (owner ${one.owner}, new process ${one.here})`, async () => {
    const { file, sessionID, requestID } = await killedMidPermission(one.owner)
    const { runtime, runs } = runtimeOn(file, one.here)
    const started = performance.now()
    await runtime.permission.reply({ requestID, reply: "once" })
    // No loop() call: the reply resumes the turn. The dead owner's lease (10 s) is not waited for.
    await vi.waitFor(
      async () =>
        expect(await glance(file, sessionID, one.here)).toEqual({
          gate: "completed",
          last: ["done"],
          requests: 0,
        }),
      { timeout: 4_000, interval: 25 },
    )
    expect(performance.now() - started).toBeLessThan(4_000)
    expect(runs.gate).toBe(1)
    expect(await runtime.permission.list()).toEqual([])
  }, 30_000)

  it(`a prompt in the new process does not wait for the dead owner's lease (owner ${two.owner}, new process ${two.here})`, async () => {
    const { file, sessionID } = await killedMidPermission(two.owner)
    const { runtime } = runtimeOn(file, two.here)
    const started = performance.now()
    const turn = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "hello" }] })
    expect(turn.text).toBe("ok")
    expect(performance.now() - started).toBeLessThan(4_000)
  }, 30_000)

  it(`when the owner's death cannot be proven, a reply is acted on by itself once the lease expires (owner ${one.owner}, new process ${one.here})`, async () => {
    const leaseMs = 1_500
    const { file, sessionID, requestID } = await killedMidPermission(one.owner, { leaseMs })
    // As a process in another container (PID namespace) or an older agentloop leaves it: an
    // owner whose process this one cannot look up.
    const expiresAt = Date.now() + leaseMs
    withRaw(file, one.here, (db) =>
      db.run(
        "UPDATE lease SET owner = 'elsewhere', expires_at = ? WHERE session_id = ?",
        expiresAt,
        sessionID,
      ),
    )
    const { runtime, runs } = runtimeOn(file, one.here, { leaseMs })
    await runtime.permission.reply({ requestID, reply: "once" })
    expect((await glance(file, sessionID, one.here)).gate).toBe("running")
    await vi.waitFor(
      async () =>
        expect(await glance(file, sessionID, one.here)).toEqual({
          gate: "completed",
          last: ["done"],
          requests: 0,
        }),
      { timeout: 6_000, interval: 25 },
    )
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
    expect(runs.gate).toBe(1)
  }, 30_000)
})

describe("a SQLite session whose process is alive", () => {
  const [, two] = ROLES as [Roles, Roles]
  it(`keeps its lease: another process neither claims nor repairs the session, and a reply goes to the owner (owner ${two.owner}, other process ${two.here})`, async () => {
    const { file, worker } = await owner(two.owner)
    const sessionID = await worker.call<string>("create")
    const answer = worker.call<{ texts: string[] }>("prompt", { sessionID, text: "ask" })
    const asked = await worker.until((line) => line.event === "asked")
    const { runtime, runs } = runtimeOn(file, two.here)
    const storage = new SqliteStorage(file, { driver: two.here })
    closing.push(() => storage.close())
    expect(await storage.coordinator!.claim(sessionID, { wait: false })).toBeUndefined()
    // A read here repairs nothing of what the live owner runs.
    const read = await runtime.session.messages(sessionID)
    expect(read.at(-1)!.parts.find((part) => part.type === "tool")).toMatchObject({
      state: { status: "running" },
    })
    await runtime.permission.reply({ requestID: asked.requestID as string, reply: "once" })
    expect((await answer).texts).toEqual(["done"])
    // The owner ran the tool; this process did not.
    expect(runs.gate).toBe(0)
    await worker.close()
  }, 30_000)
})
