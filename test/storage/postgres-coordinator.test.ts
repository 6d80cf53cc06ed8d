import { randomBytes } from "node:crypto"
import pg from "pg"
import { expect, it } from "vitest"
import { z } from "zod"
import type { Event } from "../../src/index.js"
import { Tool } from "../../src/index.js"
import { PostgresStorage } from "../../src/storage/postgres/index.js"
import { createBuilders, createTestRuntime, say } from "../../src/testing/index.js"
import { postgresSuite } from "./pg-suite.js"

const { url, suite, dropAfter } = postgresSuite()

/** Two runtimes, each with its own PostgresStorage (pool, listener, locks) on one schema. */
async function twoRuntimes(options: Parameters<typeof createTestRuntime>[0] = {}) {
  const schema = `c_${randomBytes(6).toString("hex")}`
  dropAfter(schema)
  const make = () => {
    const storage = new PostgresStorage({ connectionString: url, max: 4 }, { schema })
    return { storage, ...createTestRuntime({ ...options, storage }) }
  }
  const [a, b] = [make(), make()]
  await Promise.all([a.storage.coordinator.listening(), b.storage.coordinator.listening()])
  return { a, b }
}

suite("PostgresCoordinator", () => {
  it("delivers every event of one runtime to the other, long ones through the table", async () => {
    const long = "x".repeat(20_000)
    const { a, b } = await twoRuntimes({ turns: [[say.text(long)]] })
    const seen: Event[] = []
    const idle = new Promise<void>((resolve) =>
      b.runtime.events.onAny((event) => {
        seen.push(event)
        if (event.type === "session.idle") resolve()
      }),
    )
    const session = await a.runtime.session.create({})
    await a.runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    await idle
    const types = seen.map((event) => event.type)
    expect(types).toEqual(
      expect.arrayContaining(["session.created", "message.updated", "message.part.updated"]),
    )
    const texts = seen.flatMap((event) =>
      event.type === "message.part.updated" && event.properties.part.type === "text"
        ? [event.properties.part.text]
        : [],
    )
    expect(texts).toContain(long)
    await Promise.all([a.runtime.close(), b.runtime.close()])
  })

  it("a cancel in one runtime stops the run the other owns", async () => {
    let started!: () => void
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    const wait = Tool.define("wait", {
      description: "Waits until aborted",
      parameters: z.object({}),
      async execute(_, context) {
        started()
        await new Promise((_, reject) =>
          context.abort.addEventListener("abort", () => reject(context.abort.reason)),
        )
        return { title: "", output: "", metadata: {} }
      },
    })
    const { a, b } = await twoRuntimes({ tools: [wait], turns: [[say.toolCall("wait", {})]] })
    const session = await a.runtime.session.create({})
    const answer = a.runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    await running
    b.runtime.session.cancel(session.id)
    expect((await answer).info).toMatchObject({ error: { name: "AbortedError" } })
    await Promise.all([a.runtime.close(), b.runtime.close()])
  })

  it("claims a session for one owner at a time, and frees it on release", async () => {
    const { a, b } = await twoRuntimes()
    const session = await a.runtime.session.create({})
    const lease = await a.storage.coordinator.claim(session.id, { wait: false })
    expect(lease).toBeDefined()
    expect(await b.storage.coordinator.claim(session.id, { wait: false })).toBeUndefined()
    const waiting = b.storage.coordinator.claim(session.id, { wait: true })
    await lease!.release()
    const next = await waiting
    expect(next).toBeDefined()
    await next!.release()
    const controller = new AbortController()
    const held = await a.storage.coordinator.claim(session.id, { wait: true })
    const cancelled = b.storage.coordinator.claim(session.id, { wait: true, signal: controller.signal })
    controller.abort()
    expect(await cancelled).toBeUndefined()
    await held!.release()
    await Promise.all([a.runtime.close(), b.runtime.close()])
  })

  it("keeps a released lock's connection for the next claim, unlocked", async () => {
    const schema = `c_${randomBytes(6).toString("hex")}`
    dropAfter(schema)
    const name = `locks_${randomBytes(4).toString("hex")}`
    const storage = new PostgresStorage({ connectionString: url, application_name: name }, { schema })
    const other = new PostgresStorage({ connectionString: url }, { schema })
    const session = createBuilders().session()
    await storage.write([{ type: "session.put", info: session }])
    const pool = new pg.Pool({ connectionString: url })
    const connections = async () => {
      const { rows } = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
        [name],
      )
      return rows[0].n as number
    }
    for (let round = 0; round < 5; round++) {
      const lease = await storage.coordinator.claim(session.id, { wait: true })
      await lease!.release()
      // Released means released: another process can take it at once.
      const taken = await other.coordinator.claim(session.id, { wait: false })
      expect(taken).toBeDefined()
      await taken!.release()
    }
    const after = await connections()
    const lease = await storage.coordinator.claim(session.id, { wait: true })
    expect(await connections()).toBe(after)
    await lease!.release()
    await Promise.all([storage.close(), other.close()])
    await pool.end()
  })
})
