import type { LanguageModel } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { type MessageV2, SessionProcessor } from "../../src/index.js"
import { scriptedModel } from "../../src/testing/index.js"
import { modelInfo, turnSetup, user } from "./helpers.js"

/** A spec model that starts a text or reasoning part, sends one delta, then stays silent. */
function silentAfterDelta(kind: "text" | "reasoning"): LanguageModel {
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] })
      controller.enqueue({ type: `${kind}-start`, id: "t" })
      controller.enqueue({ type: `${kind}-delta`, id: "t", delta: "Half a sent" })
    },
    pull: () => new Promise<void>(() => {}),
  })
  return { ...scriptedModel([]), doStream: async () => ({ stream }) } as unknown as LanguageModel
}

async function setupWith(language: LanguageModel) {
  const setup = await turnSetup([])
  const processor = SessionProcessor.create({
    runtime: setup.runtime,
    assistantMessage: setup.assistant,
    model: { language, info: modelInfo },
    abort: setup.abort.signal,
    idleTimeoutMs: 60_000,
  })
  // What a process that dies now leaves: storage as it is, read without any repair.
  const inStorage = async () => {
    const message = await setup.storage.getMessage(setup.session.id, setup.assistant.id)
    return message?.parts.find((part) => part.type === "text" || part.type === "reasoning") as
      | MessageV2.TextPart
      | MessageV2.ReasoningPart
      | undefined
  }
  return { ...setup, processor, inStorage }
}

afterEach(() => {
  vi.useRealTimers()
})

describe("SessionProcessor checkpoints of streamed text", () => {
  for (const kind of ["text", "reasoning"] as const) {
    it(`writes a ${kind} part's text a second after its last delta, without a further delta`, async () => {
      vi.useFakeTimers()
      const setup = await setupWith(silentAfterDelta(kind))
      const result = setup.processor.process({ messages: user("hi") })
      await vi.advanceTimersByTimeAsync(100)
      expect((await setup.inStorage())?.text).toBe("")
      await vi.advanceTimersByTimeAsync(1_500)
      // The stream is still open: only a timer can have written this.
      expect((await setup.inStorage())?.text).toBe("Half a sent")
      setup.abort.abort()
      expect(await result).toBe("stop")
    })
  }

  it("leaves no checkpoint timer behind once the step ends", async () => {
    vi.useFakeTimers()
    const setup = await setupWith(silentAfterDelta("text"))
    setup.runtime.events.on("message.part.delta", () => setup.abort.abort())
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const writes = setup.writes.length
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(5_000)
    expect(setup.writes.length).toBe(writes)
  })
})
