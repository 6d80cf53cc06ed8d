import { APICallError } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { type Event, type MessageV2, Tool } from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"

afterEach(() => {
  vi.useRealTimers()
})

const read = Tool.define("read", {
  description: "Read a file",
  parameters: z.object({ path: z.string() }),
  async execute({ path }) {
    return { title: path, output: `contents of ${path}`, metadata: {} }
  },
})

async function setup(turns: Turn[], options: Parameters<typeof createTestRuntime>[0] = {}) {
  const { runtime, model } = createTestRuntime({ tools: [read], turns, ...options })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create({ title: "Fixed title" })
  const ask = (text: string) =>
    runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
  return { runtime, model, session, events, ask }
}

const textOf = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")

describe("runtime.session.prompt", () => {
  it("runs tool steps to completion and returns the final assistant message", async () => {
    const { runtime, model, session, ask } = await setup([
      [say.toolCall("read", { path: "a.ts" })],
      [say.text("a.ts holds the parser.")],
    ])
    const answer = await ask("What is in a.ts?")
    expect(textOf(answer)).toBe("a.ts holds the parser.")
    expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    const history = await runtime.session.messages(session.id)
    expect(history.map((message) => message.info.role)).toEqual(["user", "assistant", "assistant"])
    expect(model.calls).toHaveLength(2)
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("contents of a.ts")
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })

  it("stores without replying when noReply is set", async () => {
    const { runtime, model, session } = await setup([])
    const stored = await runtime.session.prompt({
      sessionID: session.id,
      noReply: true,
      parts: [{ type: "text", text: "note" }],
    })
    expect(stored.info.role).toBe("user")
    expect(stored.parts).toMatchObject([{ type: "text", text: "note" }])
    expect(model.calls).toHaveLength(0)
  })

  it("lets a prompt sent while busy join the running loop: one result for both callers", async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const { runtime, model, session, ask } = await setup([
      [say.toolCall("read", { path: "a.ts" })],
      (call) => [say.text(JSON.stringify(call.prompt).includes("also b.ts") ? "read both" : "read one")],
    ])
    runtime.events.on("message.part.updated", (event) => {
      if (event.properties.part.type === "tool" && event.properties.part.state.status === "completed")
        release()
    })
    const first = ask("read a.ts")
    await gate
    const second = ask("also b.ts")
    const [a, b] = await Promise.all([first, second])
    // One final message for both; each caller's turn starts at its own message.
    expect({ info: a.info, parts: a.parts }).toEqual({ info: b.info, parts: b.parts })
    expect(textOf(a)).toBe("read both")
    expect(a.steps.map((step) => step.info.id)).toEqual([a.toolCalls[0]!.messageID, a.info.id])
    expect(b.steps.map((step) => step.info.id)).toEqual([b.info.id])
    expect(b.user!.parts).toMatchObject([{ type: "text", text: "also b.ts" }])
    expect(model.calls).toHaveLength(2)
    expect((await runtime.session.messages(session.id)).map((message) => message.info.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ])
  })

  it("never runs two model calls at once for a session, even with 50 concurrent prompts", async () => {
    let active = 0
    let most = 0
    const turn: Turn = () => {
      active++
      most = Math.max(most, active)
      return [say.text("ok")]
    }
    const { runtime, session, ask } = await setup(Array.from({ length: 60 }, () => turn))
    runtime.events.on("message.updated", (event) => {
      if (event.properties.info.role === "assistant" && event.properties.info.time.completed) active--
    })
    const results = await Promise.all(Array.from({ length: 50 }, (_, index) => ask(`prompt ${index}`)))
    expect(most).toBe(1)
    const users = (await runtime.session.messages(session.id)).filter(
      (message) => message.info.role === "user",
    )
    expect(users).toHaveLength(50)
    expect(new Set(results.map((result) => result.info.id)).size).toBeLessThanOrEqual(2)
  })

  it("cancels a running step: the message is aborted and the session idle", async () => {
    const { runtime, session, ask } = await setup([
      [say.text("Partial"), say.delay(3_600_000), say.text(" never")],
    ])
    runtime.events.on("message.part.delta", () => runtime.session.cancel(session.id))
    const answer = await ask("go")
    expect(answer.info.role === "assistant" && answer.info.error?.name).toBe("AbortedError")
    expect(textOf(answer)).toBe("Partial")
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })

  it("stops a session's running loops, its children's too, before removing it", async () => {
    const { runtime, session, ask, events } = await setup([
      [say.text("Partial"), say.delay(3_600_000), say.text(" never")],
      [say.text("Child partial"), say.delay(3_600_000)],
    ])
    const child = await runtime.session.create({ parentID: session.id, title: "Child" })
    let deltas = 0
    const streaming = new Promise<void>((resolve) =>
      runtime.events.on("message.part.delta", () => {
        if (++deltas === 2) resolve()
      }),
    )
    const parent = ask("go")
    // The first delta is the parent's; start the child only then, so each gets its own turn.
    await new Promise<void>((resolve) => runtime.events.on("message.part.delta", () => resolve()))
    const inChild = runtime.session.prompt({ sessionID: child.id, parts: [{ type: "text", text: "go" }] })
    await streaming
    await runtime.session.remove(session.id)
    for (const answer of [await parent, await inChild])
      expect(answer.info.role === "assistant" && answer.info.error?.name).toBe("AbortedError")
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    expect(runtime.session.status(child.id)).toEqual({ type: "idle" })
    await expect(runtime.session.get(session.id)).rejects.toMatchObject({ name: "NotFoundError" })
    // Nothing was written after the removal.
    const deleted = events.findIndex((event) => event.type === "session.deleted")
    expect(events.slice(deleted).map((event) => event.type)).toEqual(["session.deleted", "session.deleted"])
  })

  it("stops at the agent's step limit with a last step that has no tools", async () => {
    const { model, ask } = await setup(
      [
        [say.toolCall("read", { path: "a" })],
        [say.toolCall("read", { path: "b" })],
        [say.text("wrapped up")],
      ],
      { agents: { build: { steps: 2 } } },
    )
    const answer = await ask("loop forever")
    expect(model.calls).toHaveLength(2)
    expect(model.calls[1]?.tools ?? []).toEqual([])
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("maximum number of steps")
    expect(answer.info.role === "assistant" && answer.info.finish).toBe("tool-calls")
  })
})

describe("retries", () => {
  const overloaded = (headers: Record<string, string> = {}) =>
    new APICallError({
      message: "Overloaded",
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode: 529,
      responseHeaders: headers,
      isRetryable: true,
    })

  it("waits as the provider asks, shows the retry status, and keeps no duplicate output", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] })
    const { runtime, session, events, ask } = await setup([
      { throws: overloaded({ "retry-after-ms": "1500" }) },
      [say.text("fine now")],
    ])
    const answer = ask("hello")
    await vi.waitFor(() => expect(runtime.session.status(session.id).type).toBe("retry"))
    const status = runtime.session.status(session.id)
    expect(status).toMatchObject({ type: "retry", attempt: 1, message: expect.any(String) })
    const wait = status.type === "retry" ? status.next - Date.now() : 0
    expect(wait).toBeGreaterThan(1_000)
    expect(wait).toBeLessThanOrEqual(1_500)
    await vi.advanceTimersByTimeAsync(wait)
    expect(textOf(await answer)).toBe("fine now")
    const history = await runtime.session.messages(session.id)
    expect(history.map((message) => message.info.role)).toEqual(["user", "assistant"])
    expect(history[1]?.parts[0]).toMatchObject({ type: "retry", attempt: 1, error: { name: "APIError" } })
    expect(events.some((event) => event.type === "session.error")).toBe(false)
  })

  it("gives up after the attempt limit, storing and publishing the error", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] })
    const { runtime, session, events, ask } = await setup(
      Array.from({ length: 5 }, () => ({ throws: overloaded() })),
      { retry: { maxAttempts: 2 } },
    )
    const answer = ask("hello")
    await vi.advanceTimersByTimeAsync(2_000)
    await vi.advanceTimersByTimeAsync(4_000)
    const final = await answer
    expect(final.info.role === "assistant" && final.info.error?.name).toBe("APIError")
    expect(events.filter((event) => event.type === "session.error")).toHaveLength(1)
    expect(
      (await runtime.session.messages(session.id)).filter((message) => message.info.role === "assistant"),
    ).toHaveLength(1)
  })

  it("does not retry an error that cannot succeed", async () => {
    const unauthorized = new APICallError({
      message: "invalid x-api-key",
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode: 401,
      isRetryable: false,
    })
    const { model, ask } = await setup([{ throws: unauthorized }, [say.text("never")]])
    const answer = await ask("hello")
    expect(answer.info.role === "assistant" && answer.info.error?.name).toBe("AuthError")
    expect(model.calls).toHaveLength(1)
  })
})
