import { streamText } from "ai"
import { describe, expect, it, vi } from "vitest"
import { createTestRuntime, say, scriptedModel, testModelInfo } from "../../src/testing/index.js"

async function collect(model: ReturnType<typeof scriptedModel>, abortSignal?: AbortSignal) {
  const types: string[] = []
  let text = ""
  const result = streamText({
    model,
    prompt: "hello",
    ...(abortSignal ? { abortSignal } : {}),
    onError: () => {},
  })
  for await (const part of result.fullStream) {
    types.push(part.type)
    if (part.type === "text-delta") text += part.text
  }
  return { types, text }
}

describe("scriptedModel", () => {
  it("plays one turn per call and records what it was called with", async () => {
    const model = scriptedModel([[say.text("Hello", { chunks: 3 })], [say.text("Again")]])
    expect((await collect(model)).text).toBe("Hello")
    expect((await collect(model)).text).toBe("Again")
    expect(model.calls).toHaveLength(2)
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("hello")
    let reported: unknown
    const third = streamText({
      model,
      prompt: "x",
      onError: ({ error }) => {
        reported = error
      },
    })
    await third.consumeStream()
    expect(String(reported)).toContain("call #3 has no turn")
  })

  it("reports usage and the finish reason", async () => {
    const model = scriptedModel([
      [say.toolCall("read", { path: "a" }), say.usage({ input: 10, output: 5, reasoning: 2 })],
    ])
    const result = streamText({ model, prompt: "x" })
    expect(await result.finishReason).toBe("tool-calls")
    expect(await result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 })
  })

  it("throws before streaming, or errors mid-stream", async () => {
    const model = scriptedModel([
      { throws: new Error("refused") },
      [say.text("a"), say.error(new Error("mid"))],
    ])
    expect((await collect(model)).types).toContain("error")
    const mid = await collect(model)
    expect(mid.types).toEqual(expect.arrayContaining(["text-delta", "error"]))
  })

  it("plays chunks separated by several pauses to the end", async () => {
    vi.useFakeTimers()
    try {
      const model = scriptedModel([
        [
          say.chunk({ type: "text-start", id: "t" }),
          say.chunk({ type: "text-delta", id: "t", delta: "one " }),
          say.delay(25),
          say.chunk({ type: "text-delta", id: "t", delta: "two " }),
          say.delay(25),
          say.delay(25),
          say.chunk({ type: "text-delta", id: "t", delta: "three" }),
          say.chunk({ type: "text-end", id: "t" }),
        ],
      ])
      const played = collect(model)
      await vi.advanceTimersByTimeAsync(100)
      expect((await played).text).toBe("one two three")
    } finally {
      vi.useRealTimers()
    }
  })

  it("stops a delay when the call is aborted", async () => {
    const model = scriptedModel([[say.text("before"), say.delay(3_600_000), say.text("after")]])
    const controller = new AbortController()
    setImmediate(() => controller.abort())
    const { text, types } = await collect(model, controller.signal)
    expect(text).toBe("before")
    expect(types).toContain("abort")
  })
})

describe("createTestRuntime", () => {
  it("gives a runtime whose provider serves the scripted model", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.text("Hi")]],
      modelInfo: { limit: { context: 1_000, output: 100 } },
    })
    const served = runtime.provider?.defaultModel()
    expect(served?.language).toBe(model)
    expect(served?.info).toMatchObject({ ...testModelInfo, limit: { context: 1_000, output: 100 } })
    await runtime.close()
  })
})
