import { describe, expect, it } from "vitest"
import { createBus } from "../../src/bus/bus.js"
import { createLoopContext } from "../../src/loop/context.js"
import type { LoopDeps } from "../../src/loop/loop-deps.js"
import { createRunRegistry } from "../../src/loop/run.js"
import { callModel } from "../../src/loop/steps.js"
import { MemoryStorage } from "../../src/storage/memory.js"
import { createBuilders } from "../../src/testing/index.js"
import { createLru } from "../../src/util/lru.js"

const build = createBuilders()

/** A run registry on memory storage that keeps at most `limit` repaired sessions. */
function setup(limit: number) {
  const storage = new MemoryStorage()
  const bus = createBus()
  const events: string[] = []
  bus.onAny((event) => {
    events.push(event.type)
  })
  const deps = {
    storage,
    bus,
    coordinator: undefined,
    asks: { storedCalls: async () => new Set<string>() },
  } as unknown as LoopDeps
  const context = createLoopContext(deps, (input) => callModel(deps, input), { repaired: limit })
  const runs = createRunRegistry(context)
  return { storage, events, context, runs }
}

/** A session holding what a process that stopped mid-step leaves: an answer with no end time. */
async function crashedSession(storage: MemoryStorage) {
  const session = build.session()
  const user = build.user(session.id)
  const answer = build.assistant(session.id, user.id)
  await storage.write([
    { type: "session.put", info: session },
    { type: "message.put", info: user },
    { type: "message.put", info: answer },
  ])
  return { session, answer }
}

describe("the sessions a runtime repaired", () => {
  it("are kept up to the limit, the least recently used going first", async () => {
    const { storage, context, runs } = setup(3)
    const sessions = []
    for (let index = 0; index < 10; index++) sessions.push((await crashedSession(storage)).session.id)

    for (const id of sessions) await runs.repairIfIdle(id)

    expect(context.repaired.size).toBe(3)
    expect(sessions.map((id) => context.repaired.has(id))).toEqual([
      ...Array(7).fill(false),
      ...Array(3).fill(true),
    ])
  })

  it("drop a removed session", async () => {
    const { storage, context, runs } = setup(3)
    const { session } = await crashedSession(storage)
    await runs.repairIfIdle(session.id)
    context.storageFailures.set(session.id, "why")

    runs.forget([session.id])

    expect(context.repaired.has(session.id)).toBe(false)
    expect(context.storageFailures.has(session.id)).toBe(false)
  })

  it("check a session again once it dropped out, which finds it repaired and changes nothing", async () => {
    const { storage, events, context, runs } = setup(2)
    const { session, answer } = await crashedSession(storage)
    await runs.repairIfIdle(session.id)
    const repaired = await storage.listMessages(session.id)
    expect(repaired.at(-1)?.info).toMatchObject({ id: answer.id, error: { name: "AbortedError" } })
    for (let index = 0; index < 2; index++)
      await runs.repairIfIdle((await crashedSession(storage)).session.id)
    expect(context.repaired.has(session.id)).toBe(false)
    events.length = 0

    await runs.repairIfIdle(session.id)

    expect(context.repaired.has(session.id)).toBe(true)
    expect(await storage.listMessages(session.id)).toEqual(repaired)
    expect(events).toEqual([])
  })
})

describe("a read while another read repairs the session", () => {
  it("waits for that repair, and reads the session repaired", async () => {
    const { storage, runs } = setup(3)
    const { session, answer } = await crashedSession(storage)
    const list = storage.listMessages.bind(storage)
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered!: () => void
    const listing = new Promise<void>((resolve) => {
      entered = resolve
    })
    storage.listMessages = async (...args: Parameters<typeof list>) => {
      entered()
      await held
      return list(...args)
    }

    const first = runs.repairIfIdle(session.id)
    await listing
    let secondDone = false
    const second = runs.repairIfIdle(session.id).then(() => {
      secondDone = true
    })
    await new Promise((resolve) => setImmediate(resolve))
    const doneBeforeRepair = secondDone
    release()
    await Promise.all([first, second])

    expect(doneBeforeRepair).toBe(false)
    expect((await list(session.id)).at(-1)?.info).toMatchObject({
      id: answer.id,
      error: { name: "AbortedError" },
    })
  })
})

describe("createLru", () => {
  it("keeps the newest entries, a read making an entry the newest", () => {
    const lru = createLru<string, number>(2)
    lru.set("a", 1)
    lru.set("b", 2)
    expect(lru.get("a")).toBe(1)
    lru.set("c", 3)

    expect(lru.has("b")).toBe(false)
    expect(lru.get("a")).toBe(1)
    expect(lru.get("c")).toBe(3)
    expect(lru.size).toBe(2)
  })
})
