import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  type CoordinatorMessage,
  MemoryStorage,
  type MessageV2,
  Permission,
  type Storage,
  Tool,
} from "../../src/index.js"
import {
  createCoordinatorHub,
  createTestRuntime,
  type HubCoordinator,
  say,
  scriptedModel,
  type Turn,
} from "../../src/testing/index.js"

/**
 * A process's handle on the shared storage that dies with it: after `kill()` no call of it ever
 * settles, so the simulated process writes nothing more (its runtime would otherwise react to
 * the lost lease by cancelling its run, which a killed process cannot do).
 */
function killable(storage: Storage) {
  let dead = false
  const handle = new Proxy(storage, {
    get(target, key) {
      const value = Reflect.get(target, key, target)
      if (typeof value !== "function") return value
      return (...args: unknown[]) => (dead ? new Promise(() => {}) : value.apply(target, args))
    },
  })
  const kill = () => {
    dead = true
  }
  return { storage: handle, kill }
}

/** A tool that asks the `gate` permission, counts its runs, then waits until `open` (if given). */
function gatedTool(open?: Promise<void>) {
  const runs = { count: 0 }
  let started!: () => void
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  const tool = Tool.define("gate", {
    description: "Asks first",
    parameters: z.object({}),
    async execute(_, context) {
      await context.ask({ permission: "gate", patterns: ["*"] })
      runs.count++
      started()
      await open
      return { title: "", output: "through the gate", metadata: {} }
    },
  })
  return { tool, runs, running }
}

/**
 * Two processes over one storage: A (which dies by `killA`, as a SIGKILL would end it) asks, B
 * answers. `onSend` sees what B sends before it goes out.
 */
function ownerAndAnswerer(turns: Turn[], tools: Tool.Info[], onSend?: (message: CoordinatorMessage) => void) {
  const storage = new MemoryStorage()
  const hub = createCoordinatorHub()
  const model = scriptedModel(turns)
  const ownerStorage = killable(storage)
  const coordinators: { a: HubCoordinator; b: HubCoordinator } = {
    a: hub.coordinator(),
    b: hub.coordinator(),
  }
  const send = coordinators.b.publish
  coordinators.b.publish = async (message) => {
    onSend?.(message)
    return send(message)
  }
  const options = { model, tools, permission: Permission.fromConfig({ gate: "ask" }), question: true }
  const a = createTestRuntime({ ...options, storage: ownerStorage.storage, coordinator: coordinators.a })
  const b = createTestRuntime({ ...options, storage, coordinator: coordinators.b })
  const killA = () => {
    ownerStorage.kill()
    coordinators.a.crash()
  }
  return { a: a.runtime, b: b.runtime, storage, killA }
}

const text = (value: string) => ({ type: "text" as const, text: value })
const texts = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))

async function toolPart(storage: Storage, sessionID: string, tool: string) {
  const messages = await storage.listMessages(sessionID)
  return messages
    .flatMap((message) => message.parts)
    .find((part) => part.type === "tool" && part.tool === tool)
}

describe("answers forwarded between processes", () => {
  it("a reply forwarded to an owner that dies before acting on it is acted on by the process that takes the session over", async () => {
    const gate = gatedTool()
    let killA!: () => void
    const processes = ownerAndAnswerer(
      [[say.toolCall("gate", {})], [say.text("allowed")]],
      [gate.tool],
      (message) => {
        // A dies as the reply leaves B: it never acts on it.
        if (message.type === "permission.reply") killA()
      },
    )
    killA = processes.killA
    const { a, b, storage } = processes
    const asked = new Promise<string>((resolve) =>
      b.events.on("permission.asked", (event) => resolve(event.properties.id)),
    )
    const session = await a.session.create({})
    void a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await b.permission.reply({ requestID: await asked, reply: "once" })

    const answer = await b.session.loop(session.id)
    expect(texts(answer)).toEqual(["allowed"])
    expect(gate.runs.count).toBe(1)
    expect(await toolPart(storage, session.id, "gate")).toMatchObject({
      state: { status: "completed", output: "through the gate" },
    })
    expect(await storage.listValues("permission/")).toEqual([])
    await b.close()
  })

  it("a reply forwarded to an owner that dies before acting on it is acted on by itself once the lease is free, without loop()", async () => {
    const gate = gatedTool()
    let killA!: () => void
    const processes = ownerAndAnswerer(
      [[say.toolCall("gate", {})], [say.text("allowed")]],
      [gate.tool],
      (message) => {
        if (message.type === "permission.reply") killA()
      },
    )
    killA = processes.killA
    const { a, b, storage } = processes
    const asked = new Promise<string>((resolve) =>
      b.events.on("permission.asked", (event) => resolve(event.properties.id)),
    )
    const idle = new Promise<void>((resolve) =>
      b.events.on("session.idle", () => {
        resolve()
      }),
    )
    const session = await a.session.create({})
    void a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await b.permission.reply({ requestID: await asked, reply: "once" })

    await idle
    const messages = await storage.listMessages(session.id)
    expect(texts(messages.at(-1)!)).toEqual(["allowed"])
    expect(gate.runs.count).toBe(1)
    expect(await storage.listValues("permission/")).toEqual([])
    await b.close()
  })

  it("an answer to a question forwarded to an owner that dies is the one the question tool returns", async () => {
    const questions = [
      { question: "Which one?", header: "Pick", options: [{ label: "red", description: "" }] },
    ]
    let killA!: () => void
    const processes = ownerAndAnswerer(
      [[say.toolCall("question", { questions })], [say.text("red it is")]],
      [],
      (message) => {
        if (message.type === "question.reply") killA()
      },
    )
    killA = processes.killA
    const { a, b, storage } = processes
    const asked = new Promise<string>((resolve) =>
      b.events.on("question.asked", (event) => resolve(event.properties.id)),
    )
    const session = await a.session.create({})
    void a.session.prompt({ sessionID: session.id, parts: [text("ask me")] })
    await b.question.reply({ requestID: await asked, answers: [["red"]] })

    expect(texts(await b.session.loop(session.id))).toEqual(["red it is"])
    expect(await toolPart(storage, session.id, "question")).toMatchObject({
      state: { status: "completed", metadata: { answers: [["red"]] } },
    })
    expect(await storage.listValues("question/")).toEqual([])
    await b.close()
  })

  it("a reply the owner acted on before it died is not acted on again", async () => {
    const gate = gatedTool(new Promise(() => {}))
    const { a, b, storage, killA } = ownerAndAnswerer(
      [[say.toolCall("gate", {})], [say.text("went on")]],
      [gate.tool],
    )
    const asked = new Promise<string>((resolve) =>
      b.events.on("permission.asked", (event) => resolve(event.properties.id)),
    )
    const session = await a.session.create({})
    void a.session.prompt({ sessionID: session.id, parts: [text("go")] })
    await b.permission.reply({ requestID: await asked, reply: "once" })
    // A took the reply and its tool is running when it dies.
    await gate.running
    killA()

    expect(texts(await b.session.loop(session.id))).toEqual(["went on"])
    expect(gate.runs.count).toBe(1)
    expect(await toolPart(storage, session.id, "gate")).toMatchObject({
      state: { status: "error", metadata: { interrupted: true } },
    })
    expect(await storage.listValues("permission/")).toEqual([])
    await b.close()
  })
})
