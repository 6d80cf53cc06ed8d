// Bad input gets a named error and writes nothing.
import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import {
  createRuntime,
  type Event,
  Identifier,
  InvalidInputError,
  MemoryStorage,
  type MessageV2,
  NotFoundError,
  Tool,
} from "../../src/index.js"
import { createBuilders, createTestRuntime, say } from "../../src/testing/index.js"

const isInvalid = (error: unknown) => InvalidInputError.isInstance(error)
const text = (value: string) => [{ type: "text" as const, text: value }]
const issuePaths = (error: unknown) => (error as InvalidInputError).data.issues.map((issue) => issue.path)

describe("session.updatePart with metadata JSON cannot hold", () => {
  async function withStoredPart() {
    const storage = new MemoryStorage()
    const { runtime } = createTestRuntime({ storage })
    const session = await runtime.session.create()
    const build = createBuilders()
    const user = build.user(session.id)
    const part = build.text(session.id, user.id) as MessageV2.TextPart
    await runtime.session.saveMessage({ info: user, parts: [part] })
    const events: Event[] = []
    runtime.events.onAny((event) => {
      events.push(event)
    })
    return { runtime, storage, session, user, part, events }
  }

  it("refuses a BigInt with InvalidInputError naming the field, and writes nothing", async () => {
    const { runtime, session, user, part, events } = await withStoredPart()
    const error = await runtime.session
      .updatePart({ ...part, text: "changed", metadata: { size: 10n } })
      .catch((caught: unknown) => caught)
    expect(isInvalid(error), String(error)).toBe(true)
    expect(issuePaths(error)).toEqual(["writes[0].part.metadata.size"])
    expect(await runtime.session.messages(session.id)).toEqual([{ info: user, parts: [part] }])
    expect(events).toEqual([])
  })

  it("refuses a circular reference the same way", async () => {
    const { runtime, session, user, part, events } = await withStoredPart()
    const circular: Record<string, unknown> = { name: "loop" }
    circular.self = circular
    const error = await runtime.session
      .updatePart({ ...part, metadata: { circular } })
      .catch((caught: unknown) => caught)
    expect(isInvalid(error), String(error)).toBe(true)
    expect(issuePaths(error)).toEqual(["writes[0].part.metadata.circular.self"])
    expect(await runtime.session.messages(session.id)).toEqual([{ info: user, parts: [part] }])
    expect(events).toEqual([])
  })
})

describe("session.prompt with another session's message ID", () => {
  it("refuses the ID of a message stored in an older session, storing nothing", async () => {
    const { runtime, model } = createTestRuntime({ turns: [[say.text("first")], [say.text("second")]] })
    const first = await runtime.session.create()
    const answer = await runtime.session.prompt({ sessionID: first.id, parts: text("hi") })
    const second = await runtime.session.create()

    for (const messageID of [answer.info.id, answer.info.role === "assistant" ? answer.info.parentID : ""]) {
      const error = await runtime.session
        .prompt({ sessionID: second.id, messageID, parts: text("hijack") })
        .catch((caught: unknown) => caught)
      expect(isInvalid(error), String(error)).toBe(true)
      expect(issuePaths(error)).toEqual(["messageID"])
    }
    expect(await runtime.session.messages(second.id)).toEqual([])
    expect(model.calls.length).toBe(1)
  })

  it("refuses it when the other session's message is newer than the session prompted", async () => {
    const { runtime, model } = createTestRuntime({ turns: [[say.text("first")]] })
    const older = await runtime.session.create()
    const newer = await runtime.session.create()
    const answer = await runtime.session.prompt({ sessionID: newer.id, parts: text("hi") })

    const error = await runtime.session
      .prompt({ sessionID: older.id, messageID: answer.info.id, parts: text("hijack") })
      .catch((caught: unknown) => caught)
    expect(isInvalid(error), String(error)).toBe(true)
    expect((error as Error).message).toContain(newer.id)
    expect(await runtime.session.messages(older.id)).toEqual([])
    expect(model.calls.length).toBe(1)
  })

  it("refuses an ID made before the session, also in a runtime that never saw that message", async () => {
    const storage = new MemoryStorage()
    const { runtime: earlier } = createTestRuntime({ storage, turns: [[say.text("first")]] })
    const first = await earlier.session.create()
    const answer = await earlier.session.prompt({ sessionID: first.id, parts: text("hi") })

    const { runtime, model } = createTestRuntime({ storage })
    const second = await runtime.session.create()
    const error = await runtime.session
      .prompt({ sessionID: second.id, messageID: answer.info.id, parts: text("hijack") })
      .catch((caught: unknown) => caught)
    expect(isInvalid(error), String(error)).toBe(true)
    expect(issuePaths(error)).toEqual(["messageID"])
    expect(await runtime.session.messages(second.id)).toEqual([])
    expect(model.calls.length).toBe(0)
  })

  it("still takes an ID newMessageID made for the session", async () => {
    const { runtime } = createTestRuntime({ turns: [[say.text("answer")]] })
    const session = await runtime.session.create()
    const messageID = await runtime.session.newMessageID(session.id)
    await runtime.session.prompt({ sessionID: session.id, messageID, parts: text("hi") })
    expect((await runtime.session.messages(session.id))[0]?.info.id).toBe(messageID)
  })
})

describe("session.newMessageID", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("makes an ID the prompt takes even after the clock stepped back past the session's creation", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(new Date("2030-01-01T12:00:00Z"))
    const { runtime } = createTestRuntime({ turns: [[say.text("answer")]] })
    const session = await runtime.session.create()
    vi.setSystemTime(new Date("2030-01-01T11:00:00Z"))
    const messageID = await runtime.session.newMessageID(session.id)
    expect(Identifier.timestamp(messageID)).toBeGreaterThanOrEqual(Identifier.timestamp(session.id))
    await runtime.session.prompt({ sessionID: session.id, messageID, parts: text("hi") })
    expect((await runtime.session.messages(session.id))[0]?.info.id).toBe(messageID)
  })
})

describe("session.cancel", () => {
  it("rejects with NotFoundError for a session that does not exist", async () => {
    const { runtime } = createTestRuntime()
    const session = await runtime.session.create()
    await runtime.session.remove(session.id)
    const error = await runtime.session.cancel(session.id).catch((caught: unknown) => caught)
    expect(NotFoundError.isInstance(error), String(error)).toBe(true)
    expect((error as NotFoundError).data.id).toBe(session.id)
  })

  it("does nothing, and resolves, for an idle session", async () => {
    const { runtime } = createTestRuntime()
    const session = await runtime.session.create()
    await expect(runtime.session.cancel(session.id)).resolves.toBeUndefined()
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })
})

describe("names that are Object.prototype's", () => {
  const tool = (id: string) =>
    Tool.define(id, {
      description: "A tool",
      parameters: z.object({}),
      execute: async () => ({ title: id, output: "ran", metadata: {} }),
    })

  it("refuses an agent named __proto__ with InvalidInputError, however the key was made", () => {
    const parsed = JSON.parse('{"__proto__": {"description": "sneaky", "mode": "primary"}}')
    const defined = Object.defineProperty({}, "__proto__", {
      value: { description: "sneaky" },
      enumerable: true,
    })
    for (const agents of [parsed, defined]) {
      let error: unknown
      try {
        createRuntime({ agents })
      } catch (caught) {
        error = caught
      }
      expect(isInvalid(error), String(error)).toBe(true)
      expect(issuePaths(error)).toEqual(["agents.__proto__"])
    }
  })

  it("refuses a tool named __proto__, defined or in a tool set", () => {
    expect(() => tool("__proto__")).toThrow(InvalidInputError)
    const set = Object.defineProperty({}, "__proto__", {
      value: { description: "sneaky", inputSchema: z.object({}), execute: async () => "ran" },
      enumerable: true,
    })
    expect(() => createRuntime({ tools: set })).toThrow(InvalidInputError)
  })

  it("does not resolve an agent or tool named after an Object.prototype member", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [tool("constructor")],
      turns: [
        [say.toolCall("toString", {}, { unavailable: true })],
        [say.toolCall("constructor", {})],
        [say.text("done")],
      ],
    })
    const session = await runtime.session.create()
    for (const agent of ["toString", "hasOwnProperty", "constructor"])
      await expect(
        runtime.session.prompt({ sessionID: session.id, agent, parts: text("hi") }),
      ).rejects.toThrow(/agent/i)
    expect(await runtime.session.messages(session.id)).toEqual([])

    await runtime.session.prompt({ sessionID: session.id, parts: text("call them") })
    const calls = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
    expect(calls.map((part) => [part.tool, part.state.status])).toEqual([
      ["toString", "error"],
      ["constructor", "completed"],
    ])
    expect(model.calls.length).toBe(3)
  })
})
