// Nothing hangs (ARCHITECTURE principle 8): a hook that never settles, a stream that stalls.
import { afterEach, describe, expect, it, vi } from "vitest"
import {
  type Event,
  type EventOf,
  type MessageV2,
  RuntimeClosedError,
  type RuntimeOptions,
} from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"

const HOUR = 3_600_000
const never = () => new Promise<never>(() => {})

afterEach(() => {
  vi.useRealTimers()
})

/** Starts a prompt whose run waits in a hook that never settles; resolves once the hook was entered. */
async function stuckIn(
  hook: "chat.system" | "chat.params" | "text.complete",
  turns: Turn[] = [[say.text("Hi")]],
) {
  let entered: (signal: AbortSignal) => void = () => {}
  const inHook = new Promise<AbortSignal>((resolve) => {
    entered = resolve
  })
  const hooks: RuntimeOptions["hooks"] = {
    [hook]: (input: { abort: AbortSignal }) => {
      entered(input.abort)
      return never()
    },
  }
  const { runtime } = createTestRuntime({ hooks, turns })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create()
  const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
  const signal = await inHook
  return { runtime, session, answer, signal, events }
}

describe("a hook that never settles", () => {
  for (const hook of ["chat.system", "chat.params", "text.complete"] as const) {
    it(`${hook}: cancel ends the turn as aborted, and the hook's signal aborts`, async () => {
      const { runtime, session, answer, signal } = await stuckIn(hook)
      expect(signal.aborted).toBe(false)

      runtime.session.cancel(session.id)
      const result = await answer
      expect(signal.aborted).toBe(true)
      expect(result.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } })
      expect(result.info.role === "assistant" && result.info.time.completed).toEqual(expect.any(Number))
      expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
    })

    it(`${hook}: close() and session.remove() resolve`, async () => {
      const { runtime, session, answer } = await stuckIn(hook)
      await runtime.session.remove(session.id)
      await answer.catch(() => undefined)
      await runtime.close()
    })
  }

  it("text.complete: the cut-off text keeps its text and gets an end time", async () => {
    const { runtime, session, answer } = await stuckIn("text.complete", [[say.text("Half a thought")]])
    runtime.session.cancel(session.id)
    const result = await answer
    const text = result.parts.find((part): part is MessageV2.TextPart => part.type === "text")
    expect(text).toMatchObject({ text: "Half a thought", time: { end: expect.any(Number) } })
  })

  it("chat.message: close() rejects the prompt with RuntimeClosedError and stores nothing", async () => {
    let entered: () => void = () => {}
    const inHook = new Promise<void>((resolve) => {
      entered = resolve
    })
    const { runtime } = createTestRuntime({
      hooks: {
        "chat.message": () => {
          entered()
          return never()
        },
      },
    })
    const session = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    await inHook
    await runtime.close()
    await expect(answer).rejects.toSatisfy((error) => RuntimeClosedError.isInstance(error))
  })
})

describe("a cancel in the middle of a stream", () => {
  it("publishes session.error with the AbortedError", async () => {
    const { runtime } = createTestRuntime({ turns: [[say.text("Thinking", { chunks: 2 }), say.delay(HOUR)]] })
    const session = await runtime.session.create()
    const errors: EventOf<"session.error">[] = []
    runtime.events.on("session.error", (event) => {
      errors.push(event)
    })
    runtime.events.on("message.part.delta", () => runtime.session.cancel(session.id))
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    expect(errors.map((event) => event.properties)).toEqual([
      { sessionID: session.id, error: { name: "AbortedError", data: { message: expect.any(String) } } },
    ])
  })
})

describe("a model stream that stalls", () => {
  it("fails the attempt after the idle timeout as retryable, and the retry answers", async () => {
    vi.useFakeTimers()
    const { runtime, model } = createTestRuntime({
      streamIdleTimeoutMs: 60_000,
      turns: [[say.text("Let me"), say.delay(HOUR)], [say.text("Recovered.")]],
    })
    const session = await runtime.session.create()
    const statuses: string[] = []
    runtime.events.on("session.status", (event) => {
      statuses.push(event.properties.status.type)
    })
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    await vi.advanceTimersByTimeAsync(59_999)
    expect(model.calls.length).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(runtime.session.status(session.id)).toMatchObject({
      type: "retry",
      message: expect.stringMatching(/stall/i),
    })
    await vi.advanceTimersByTimeAsync(2_000)
    const result = await answer
    expect(model.calls.length).toBe(2)
    expect(result.parts.some((part) => part.type === "text" && part.text === "Recovered.")).toBe(true)
    expect(statuses).toContain("retry")
  })

  it("does not count the time a tool runs (e.g. waiting for a permission) as a stall", async () => {
    vi.useFakeTimers()
    const { runtime } = createTestRuntime({
      streamIdleTimeoutMs: 60_000,
      question: true,
      turns: [
        [say.toolCall("question", { questions: [{ question: "Go?", header: "Go", options: [] }] })],
        [say.text("Done.")],
      ],
    })
    const session = await runtime.session.create()
    const asked = new Promise<string>((resolve) =>
      runtime.events.on("question.asked", (event) => resolve(event.properties.id)),
    )
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    const requestID = await asked
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    await runtime.question.reply({ requestID, answers: [["yes"]] })
    const result = await answer
    expect(result.info.role === "assistant" && result.info.error).toBeUndefined()
    expect(result.parts.some((part) => part.type === "text" && part.text === "Done.")).toBe(true)
  })
})
