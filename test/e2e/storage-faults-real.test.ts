// Turns meeting real storage faults: a full disk (a 2 MB tmpfs when this process may mount one),
// a second process holding SQLite's write lock, and PostgreSQL backends terminated mid-turn.
// Each asserts a named error (or a transparent retry), nothing unfinished once storage
// recovers, nothing acknowledged lost, and a session that goes on.
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Storage, StorageError, Tool } from "../../src/index.js"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"
import { findPostgres } from "../setup/pg-cluster.js"
import { fillDisk, LockHolder, stallProbe } from "../storage/fault-helpers.js"
import { type OwnCluster, ownCluster } from "../storage/pg-faults-helpers.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-turn-faults-"))
const mountPoint = path.join(directory, "tmpfs")
const mounted = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false
  fs.mkdirSync(mountPoint)
  return spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]).status === 0
})()
const pgURL = process.env.AGENTLOOP_PG_URL
const bin = findPostgres()

afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint])
  fs.rmSync(directory, { recursive: true, force: true })
})

/** A tool that does `during` while it runs, then returns `metadata` (large, to need new pages). */
function faultTool(during: () => Promise<void> | void, metadata: Record<string, unknown> = {}) {
  return Tool.define("work", {
    description: "Works",
    parameters: z.object({}),
    async execute() {
      await during()
      return { title: "worked", output: "worked", metadata }
    },
  })
}

// Priced usage on every step, so a step counted twice would show in the session's cost.
const usage = say.usage({ input: 1_000, output: 10 })
const turns = () => [
  [say.text("Working."), say.toolCall("work", {}), usage],
  [say.text("Done."), usage],
  [say.text("Carried on."), usage],
  [say.text("Still here."), usage],
]

/** What a turn left open: answers without an end, running tools, text without an end. */
function unfinished(messages: MessageV2.WithParts[]): string[] {
  return messages.flatMap((message) => [
    ...(message.info.role === "assistant" && message.info.time.completed === undefined
      ? [`${message.info.id} open`]
      : []),
    ...message.parts.flatMap((part) =>
      (part.type === "tool" && (part.state.status === "running" || part.state.status === "pending")) ||
      ((part.type === "text" || part.type === "reasoning") &&
        part.time !== undefined &&
        part.time.end === undefined)
        ? [`${part.type} ${part.id} open`]
        : [],
    ),
  ])
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the prompt to reject"),
    (error: unknown) => error,
  )
}

/** After a fault: nothing left open, the acknowledged user message there, and the session goes on. */
async function recovers(runtime: ReturnType<typeof createTestRuntime>["runtime"], sessionID: string) {
  const messages = await runtime.session.messages(sessionID)
  expect(unfinished(messages)).toEqual([])
  expect(
    messages.some((message) => message.parts.some((part) => part.type === "text" && part.text === "start")),
  ).toBe(true)
  const next = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "go on" }] })
  expect(next.info.role === "assistant" && next.info.error).toBeUndefined()
  expect(unfinished(await runtime.session.messages(sessionID))).toEqual([])
}

/**
 * A turn whose storage faults were all retried: answered without error, nothing left open, the
 * tool completed once, and the session's cost the sum of its steps (no step counted twice).
 */
async function wentThrough(runtime: ReturnType<typeof createTestRuntime>["runtime"], sessionID: string) {
  const answer = await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "start" }] })
  expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
  const messages = await runtime.session.messages(sessionID)
  expect(unfinished(messages)).toEqual([])
  const tools = messages.flatMap((message) => message.parts).filter((part) => part.type === "tool")
  expect(tools.map((part) => part.type === "tool" && part.state.status)).toEqual(["completed"])
  const sum = messages.reduce(
    (total, message) => total + (message.info.role === "assistant" ? message.info.cost : 0),
    0,
  )
  expect(sum).toBeGreaterThan(0)
  expect((await runtime.session.get(sessionID)).cost).toBeCloseTo(sum, 10)
}

describe(`a turn on SQLite when the disk fills (${mounted ? "a real 2 MB tmpfs" : "SKIPPED: cannot mount a tmpfs here (needs root)"})`, () => {
  it.runIf(mounted)(
    "rejects with a StorageError of reason full, and goes on once there is room",
    async () => {
      const filler = path.join(mountPoint, "filler")
      const fill = () => fillDisk(filler)
      // The tool's result needs pages the full disk cannot give.
      const big = { blob: "x".repeat(512 * 1024) }
      const { runtime } = createTestRuntime({
        storage: new SqliteStorage(path.join(mountPoint, "turn.sqlite")),
        tools: [faultTool(fill, big)],
        turns: turns(),
      })
      const session = await runtime.session.create({ title: "disk" })
      const error = await rejection(
        runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "start" }] }),
      )
      expect(StorageError.isInstance(error)).toBe(true)
      expect((error as StorageError).data).toMatchObject({ reason: "full", retryable: false })

      fs.rmSync(filler)
      await recovers(runtime, session.id)
      await runtime.close()
    },
    30_000,
  )
})

describe("a turn on SQLite while another process holds the write lock", () => {
  it("rejects with a retryable busy StorageError past the bound, never stalling the process, and goes on", async () => {
    const file = path.join(directory, "busy.sqlite")
    let holder: LockHolder | undefined
    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file, { retry: { maxAttempts: 5, maxDelayMs: 20 } }),
      tools: [
        faultTool(async () => {
          holder = new LockHolder(file, "write")
          await holder.locked()
        }),
      ],
      turns: turns(),
    })
    const session = await runtime.session.create({ title: "busy" })
    const probe = stallProbe()
    const error = await rejection(
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "start" }] }),
    )
    await holder!.release()
    expect(probe.stop()).toBeLessThan(200)
    expect(StorageError.isInstance(error)).toBe(true)
    expect((error as StorageError).data).toMatchObject({ reason: "busy", retryable: true })

    await recovers(runtime, session.id)
    await runtime.close()
  }, 30_000)
})

describe.runIf(pgURL)("a turn on PostgreSQL when its backends are terminated mid-turn", () => {
  it("retries on new connections: the turn finishes, each write landing once", async () => {
    const schema = `t_${randomBytes(6).toString("hex")}`
    const app = `agentloop-${schema}`
    const admin = new pg.Client({ connectionString: pgURL })
    await admin.connect()
    const storage: Storage = new PostgresStorage(
      { connectionString: pgURL, application_name: app, max: 2 },
      { schema },
    )
    const terminate = async () => {
      const { rows } = await admin.query<{ done: boolean }>(
        "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1",
        [app],
      )
      expect(rows.length).toBeGreaterThan(0)
    }
    const { runtime } = createTestRuntime({
      storage,
      coordinator: false,
      tools: [faultTool(terminate)],
      turns: turns(),
    })
    const session = await runtime.session.create({ title: "pg" })
    await wentThrough(runtime, session.id)
    await runtime.close()
    await admin.query(`DROP SCHEMA ${schema} CASCADE`)
    await admin.end()
  }, 60_000)

  it("retries for five sessions at once, whose writes and reads share statements: each turn finishes, each write landing once", async () => {
    const schema = `t_${randomBytes(6).toString("hex")}`
    const app = `agentloop-${schema}`
    const admin = new pg.Client({ connectionString: pgURL })
    await admin.connect()
    const storage = new PostgresStorage(
      { connectionString: pgURL, application_name: app, max: 4 },
      { schema },
    )
    let terminated = 0
    // Each session's tool cuts every connection of the storage, merged statements in flight included.
    const terminate = async () => {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [app],
      )
      terminated++
    }
    // Each session: a tool call, then an answer once the prompt holds the tool's result.
    const model = scriptedModel([], {
      fallback: (call) =>
        call.prompt.some((message) => message.role === "tool")
          ? [say.text("Done."), usage]
          : [say.text("Working."), say.toolCall("work", {}), usage],
    })
    const { runtime } = createTestRuntime({
      storage,
      coordinator: false,
      tools: [faultTool(terminate)],
      model,
    })
    const sessions = await Promise.all(
      Array.from({ length: 5 }, (_, index) => runtime.session.create({ title: `pg ${index}` })),
    )
    await Promise.all(sessions.map((session) => wentThrough(runtime, session.id)))
    expect(terminated).toBe(5)
    await runtime.close()
    await admin.query(`DROP SCHEMA ${schema} CASCADE`)
    await admin.end()
  }, 60_000)
})

describe.runIf(bin)(
  "a turn on PostgreSQL when its server restarts mid-turn (a cluster of this file's own)",
  () => {
    let cluster: OwnCluster
    beforeAll(async () => {
      cluster = await ownCluster(bin!)
    }, 60_000)
    afterAll(() => cluster?.remove())

    it("waits through the restart: the turn finishes, nothing unfinished, the cost counted once", async () => {
      const schema = `r_${randomBytes(6).toString("hex")}`
      const storage = new PostgresStorage({ connectionString: cluster.url, max: 2 }, { schema })
      const { runtime } = createTestRuntime({
        storage,
        coordinator: false,
        tools: [faultTool(() => cluster.restart())],
        turns: turns(),
      })
      const session = await runtime.session.create({ title: "restart" })
      await wentThrough(runtime, session.id)
      await recovers(runtime, session.id)
      await runtime.close()
    }, 60_000)
  },
)
