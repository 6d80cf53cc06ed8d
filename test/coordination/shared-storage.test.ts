import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  type Coordinator,
  MemoryStorage,
  type MessageV2,
  Permission,
  type Runtime,
  Tool,
} from "../../src/index.js"
import {
  createCoordinatorHub,
  createTestRuntime,
  type ScriptedModel,
  say,
  scriptedModel,
  type Turn,
} from "../../src/testing/index.js"

/** A scripted model that counts how many of its streams are open at once. */
function countingModel(turns: Turn[], fallback: Turn = [say.text("ok")]) {
  const model = scriptedModel(turns, { fallback })
  const counts = { active: 0, max: 0 }
  const play = model.doStream.bind(model)
  model.doStream = async (options) => {
    counts.active++
    counts.max = Math.max(counts.max, counts.active)
    const result = await play(options)
    const close = new TransformStream({ flush: () => void counts.active-- })
    return { ...result, stream: result.stream.pipeThrough(close) }
  }
  return { model, counts }
}

/** A tool that runs until released, and says when it started. */
function gate() {
  let release!: () => void
  let started!: () => void
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  const open = new Promise<void>((resolve) => {
    release = resolve
  })
  const tool = Tool.define("gate", {
    description: "Waits",
    parameters: z.object({}),
    async execute() {
      started()
      await open
      return { title: "", output: "opened", metadata: {} }
    },
  })
  return { tool, running, release: () => release() }
}

/** Two runtimes over one storage, as two processes over one database. */
function twoProcesses(model: ScriptedModel, options: { tools?: Tool.Info[] } = {}) {
  // MemoryStorage's close() does nothing, so the runtimes can share it and close one by one.
  const storage = new MemoryStorage()
  const hub = createCoordinatorHub()
  const make = (coordinator: Coordinator) =>
    createTestRuntime({ model, storage, coordinator, ...options }).runtime
  const a = hub.coordinator()
  const b = hub.coordinator()
  return { a: make(a), b: make(b), storage, hub, coordinators: { a, b } }
}

const text = (value: string) => ({ type: "text" as const, text: value })
const texts = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

async function closeAll(...runtimes: Runtime[]) {
  await Promise.all(runtimes.map((runtime) => runtime.close()))
}

describe("runtimes sharing one storage through a coordinator", () => {
  it("a prompt in one process joins the run another process owns: one model call at a time", async () => {
    const door = gate()
    const { model, counts } = countingModel([[say.toolCall("gate", {})], [say.text("done for both")]])
    const { a, b } = twoProcesses(model, { tools: [door.tool] })
    const session = await a.session.create({})
    const first = a.session.prompt({ sessionID: session.id, parts: [text("one")] })
    await door.running
    const second = b.session.prompt({ sessionID: session.id, parts: [text("two")] })
    // Memory storage and the hub settle in microtasks: after one turn of the event loop B's
    // message is stored and A's run has taken it in for its next step.
    await nextTurn()
    door.release()
    const [one, two] = await Promise.all([first, second])
    expect(texts(one)).toEqual(["done for both"])
    expect(two.info.id).toBe(one.info.id)
    expect(model.calls).toHaveLength(2)
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain("two")
    expect(counts.max).toBe(1)
    await closeAll(a, b)
  })

  it("2 processes × 10 prompts to one session never run two model calls at once", async () => {
    const { model, counts } = countingModel([])
    const { a, b, storage } = twoProcesses(model)
    const session = await a.session.create({})
    const prompts = Array.from({ length: 20 }, (_, index) =>
      (index % 2 === 0 ? a : b).session.prompt({ sessionID: session.id, parts: [text(`prompt ${index}`)] }),
    )
    const answers = await Promise.all(prompts)
    expect(counts.max).toBe(1)
    for (const answer of answers) expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    const messages = await storage.listMessages(session.id)
    expect(messages.filter((message) => message.info.role === "user")).toHaveLength(20)
    expect(messages.at(-1)!.info.role).toBe("assistant")
    await closeAll(a, b)
  })

  it("events published in one process reach the other's listeners", async () => {
    const { model } = countingModel([[say.text("hello")]])
    const { a, b } = twoProcesses(model)
    const seen: string[] = []
    b.events.onAny((event) => {
      seen.push(event.type)
    })
    const session = await a.session.create({})
    await a.session.prompt({ sessionID: session.id, parts: [text("hi")] })
    await nextTurn()
    expect(seen).toEqual(
      expect.arrayContaining(["session.created", "message.updated", "message.part.updated", "session.idle"]),
    )
    await closeAll(a, b)
  })

  it("a permission asked in one process is answered through the other", async () => {
    const { model } = countingModel([[say.toolCall("gate", {})], [say.text("allowed")]])
    const door = gate()
    door.release()
    const storage = new MemoryStorage()
    const hub = createCoordinatorHub()
    const options = { model, storage, tools: [door.tool] }
    const asking = Tool.define("gate", {
      ...door.tool,
      async execute(args, context) {
        await context.ask({ permission: "gate", patterns: ["*"] })
        return door.tool.execute(args, context)
      },
    })
    const permission = Permission.fromConfig({ gate: "ask" })
    const a = createTestRuntime({
      ...options,
      tools: [asking],
      permission,
      coordinator: hub.coordinator(),
    }).runtime
    const b = createTestRuntime({ ...options, coordinator: hub.coordinator() }).runtime
    const asked = new Promise<string>((resolve) =>
      b.events.on("permission.asked", (event) => resolve(event.properties.id)),
    )
    const session = await a.session.create({})
    const answer = a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    const requestID = await asked
    await b.permission.reply({ requestID, reply: "once" })
    expect(texts(await answer)).toEqual(["allowed"])
    await closeAll(a, b)
  })

  it("a cancel in one process cancels the run the other owns", async () => {
    const door = gate()
    const { model } = countingModel([[say.toolCall("gate", {})]])
    const { a, b } = twoProcesses(model, { tools: [door.tool] })
    const session = await a.session.create({})
    const answer = a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await door.running
    b.session.cancel(session.id)
    const result = await answer
    expect(result.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } })
    door.release()
    await closeAll(a, b)
  })

  it("a cancel delivered late stops only a run that started before it was sent", async () => {
    const door = gate()
    const { model } = countingModel([[say.toolCall("gate", {})]])
    const { a, b, coordinators } = twoProcesses(model, { tools: [door.tool] })
    const session = await a.session.create({})
    const answer = a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await door.running
    let settled = false
    void answer.finally(() => {
      settled = true
    })
    // As a coordinator that read them late delivers them: the first was sent before this run.
    await coordinators.b.publish({ type: "cancel", sessionID: session.id, sentAt: Date.now() - 60_000 })
    await nextTurn()
    expect(settled).toBe(false)
    expect(a.session.status(session.id)).toEqual({ type: "busy" })
    await coordinators.b.publish({ type: "cancel", sessionID: session.id, sentAt: Date.now() })
    expect((await answer).info).toMatchObject({ error: { name: "AbortedError" } })
    door.release()
    await closeAll(a, b)
  })

  it("a process that loses its owner takes the session over", async () => {
    const door = gate()
    const { model } = countingModel([[say.toolCall("gate", {})], [say.text("finished by B")]])
    const { a, b, coordinators } = twoProcesses(model, { tools: [door.tool] })
    const session = await a.session.create({})
    const stopped = a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await door.running
    // A's link breaks: its lease is lost, so its run stops; B may now run the session.
    coordinators.a.crash()
    await stopped
    door.release()
    const answer = await b.session.prompt({ sessionID: session.id, parts: [text("go on")] })
    expect(texts(answer)).toEqual(["finished by B"])
    await closeAll(a, b)
  })

  it("removing a session another process runs stops that run first, and nothing is written after", async () => {
    const door = gate()
    const { model } = countingModel([[say.toolCall("gate", {})]])
    const { a, b, storage } = twoProcesses(model, { tools: [door.tool] })
    const session = await a.session.create({})
    const answer = a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await door.running
    await b.session.remove(session.id)
    expect((await answer).info).toMatchObject({ error: { name: "AbortedError" } })
    expect(await storage.getSession(session.id)).toBeUndefined()
    await expect(storage.listMessages(session.id)).rejects.toThrow(/not found/i)
    door.release()
    await closeAll(a, b)
  })
})
