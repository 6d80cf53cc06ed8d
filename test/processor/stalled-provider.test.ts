import type { LanguageModel } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { type MessageV2, SessionProcessor } from "../../src/index.js"
import { scriptedModel } from "../../src/testing/index.js"
import { modelInfo, turnSetup, user } from "./helpers.js"

/**
 * A spec model that sends a text's start and one delta, then nothing more, and ignores both its
 * abort signal and the cancel of its stream: only the processor can end the step.
 */
function stallingModel(): LanguageModel {
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] })
      controller.enqueue({ type: "text-start", id: "t" })
      controller.enqueue({ type: "text-delta", id: "t", delta: "Half a sent" })
    },
    pull: () => new Promise<void>(() => {}),
  })
  return { ...scriptedModel([]), doStream: async () => ({ stream }) } as unknown as LanguageModel
}

async function setupWith(language: LanguageModel, idleTimeoutMs?: number) {
  const setup = await turnSetup([])
  const processor = SessionProcessor.create({
    runtime: setup.runtime,
    assistantMessage: setup.assistant,
    model: { language, info: modelInfo },
    abort: setup.abort.signal,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  })
  return { ...setup, processor }
}

afterEach(() => {
  vi.useRealTimers()
})

describe("SessionProcessor with a provider that stalls and ignores its signal", () => {
  it("ends the step at once on abort, keeping the text so far", async () => {
    vi.useFakeTimers()
    const setup = await setupWith(stallingModel())
    setup.runtime.events.on("message.part.delta", () => setup.abort.abort())
    // Fake timers: no timer can end the step, only the abort.
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const { info, parts } = await setup.stored()
    const text = parts.find((part) => part.type === "text") as MessageV2.TextPart
    expect(text.text).toBe("Half a sent")
    expect(text.time?.end).toBeDefined()
    expect(info.role === "assistant" && info.error?.name).toBe("AbortedError")
  })

  it("ends the step after the idle timeout as a retryable stall", async () => {
    vi.useFakeTimers()
    const setup = await setupWith(stallingModel(), 60_000)
    const result = setup.processor.process({ messages: user("hi") })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await result).toBe("stop")
    const { info, parts } = await setup.stored()
    expect(info.role === "assistant" && info.error).toMatchObject({
      name: "APIError",
      data: { message: expect.stringMatching(/stall/i), isRetryable: true },
    })
    const text = parts.find((part) => part.type === "text") as MessageV2.TextPart
    expect(text.text).toBe("Half a sent")
  })
})
