import { APICallError, simulateReadableStream } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createRuntime, type Runtime } from "../../src/index.js"
import type { Assistant } from "../../src/message/info.js"
import { Provider } from "../../src/provider/index.js"
import { invalid } from "./invalid.js"

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer Part>
    ? Part
    : never

/** An AI SDK model that answers "Hello." using 10,000 uncached prompt tokens and 1,000 output tokens. */
function mockModel(provider: string, modelId: string): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider,
    modelId,
    doStream: async () => ({ stream: simulateReadableStream({ chunks: answer("Hello.") }) }),
  })
}

function answer(text: string): StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: text },
    { type: "text-end", id: "t1" },
    {
      type: "finish",
      finishReason: { unified: "stop", raw: "end_turn" },
      usage: {
        inputTokens: { total: 10_000, noCache: 10_000, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1_000, text: 1_000, reasoning: 0 },
      },
    },
  ]
}

async function answerOf(runtime: Runtime): Promise<{ sessionID: string; info: Assistant }> {
  const session = await runtime.session.create()
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] })
  const messages = await runtime.session.messages(session.id)
  const info = messages.at(-1)?.info
  if (info?.role !== "assistant") throw new Error("expected an assistant answer")
  return { sessionID: session.id, info }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("createRuntime({ model })", () => {
  it("runs a bare AI SDK model, priced from the catalogue", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    const runtime = createRuntime({ model: mockModel("anthropic.messages", "claude-sonnet-4-5") })
    const { sessionID, info } = await answerOf(runtime)

    expect(info).toMatchObject({ providerID: "anthropic", modelID: "claude-sonnet-4-5" })
    // 10,000 × $3 + 1,000 × $15 per million tokens
    expect(info.cost).toBeCloseTo(0.045, 10)
    expect(info.costUnknown).toBeUndefined()
    const usage = await runtime.session.usage(sessionID)
    expect(usage.cost).toBeCloseTo(0.045, 10)
    expect(usage.costUnknown).toBeUndefined()
    expect(usage.total.costUnknown).toBeUndefined()
    expect(warn).not.toHaveBeenCalled()
    await runtime.close()
  })

  it("runs a model the catalogue does not know, its cost recorded as unknown, and says so once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    const runtime = createRuntime({ model: mockModel("acme.chat", "acme-1") })
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toContain("acme/acme-1")
    expect(runtime.provider?.defaultModel().info).toMatchObject({ providerID: "acme", id: "acme-1" })
    expect(runtime.provider?.defaultModel().info.cost).toBeUndefined()
    expect(runtime.provider?.defaultModel().info.limit).toBeUndefined()

    const { sessionID, info } = await answerOf(runtime)
    await answerOf(runtime)
    expect(info.cost).toBe(0)
    expect(info.costUnknown).toBe(true)
    expect(info.tokens).toMatchObject({ input: 10_000, output: 1_000 })
    const usage = await runtime.session.usage(sessionID)
    expect(usage).toMatchObject({ cost: 0, costUnknown: true, total: { cost: 0, costUnknown: true } })
    expect((await runtime.session.fork({ sessionID })).costUnknown).toBe(true)
    expect(warn).toHaveBeenCalledTimes(1)
    await runtime.close()
  })

  it("compacts an unknown model when the provider says its context overflowed", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {})
    const replies = [
      () => {
        throw new APICallError({
          message: "prompt is too long: 250000 tokens > 200000 maximum",
          url: "https://api.acme.test/v1/chat",
          requestBodyValues: {},
          statusCode: 400,
        })
      },
      () => answer("Summary of the session."),
      () => answer("Hello again."),
    ]
    const model = new MockLanguageModelV3({
      provider: "acme.chat",
      modelId: "acme-1",
      doStream: async () => ({ stream: simulateReadableStream({ chunks: replies.shift()!() }) }),
    })
    const runtime = createRuntime({ model })
    const { sessionID, info } = await answerOf(runtime)

    const messages = await runtime.session.messages(sessionID)
    expect(messages.some((message) => message.info.role === "assistant" && message.info.summary)).toBe(true)
    expect(info).toMatchObject({ costUnknown: true, cost: 0 })
    expect(info.summary).toBeUndefined()
    expect(info.error).toBeUndefined()
    expect(replies).toHaveLength(0)
    await runtime.close()
  })

  it("lets the host's info win over the catalogue", async () => {
    const runtime = createRuntime({
      model: {
        language: mockModel("anthropic.messages", "claude-sonnet-4-5"),
        info: {
          cost: { input: 1, output: 2, cache: { read: 0, write: 0 } },
          capabilities: { attachment: false },
        },
      },
    })
    const model = runtime.provider!.defaultModel().info
    expect(model).toMatchObject({
      name: "Claude Sonnet 4.5",
      limit: { context: 200_000 },
      capabilities: { toolcall: true, attachment: false },
    })
    const { info } = await answerOf(runtime)
    // 10,000 × $1 + 1,000 × $2 per million tokens
    expect(info.cost).toBeCloseTo(0.012, 10)
    await runtime.close()
  })
})

describe("createRuntime({ models })", () => {
  it("runs the first model by default and serves the others by ID", async () => {
    const runtime = createRuntime({
      models: [mockModel("openai.responses", "gpt-4.1"), mockModel("anthropic.messages", "claude-haiku-4-5")],
    })
    const provider = runtime.provider!
    expect(provider.defaultModel().info).toMatchObject({ providerID: "openai", id: "gpt-4.1" })
    expect(provider.getModel({ providerID: "anthropic", modelID: "claude-haiku-4-5" }).info.cost?.input).toBe(
      1,
    )
    expect(provider.smallModel()).toBeUndefined()
    const { info } = await answerOf(runtime)
    expect(info).toMatchObject({ providerID: "openai", modelID: "gpt-4.1" })
    await runtime.close()
  })

  it("uses smallModel for titles, listed or not", () => {
    const haiku = mockModel("anthropic.messages", "claude-haiku-4-5")
    const listed = createRuntime({
      models: [mockModel("openai.responses", "gpt-4.1"), haiku],
      smallModel: haiku,
    })
    expect(listed.provider!.smallModel()?.language).toBe(haiku)
    const apart = createRuntime({ model: mockModel("openai.responses", "gpt-4.1"), smallModel: haiku })
    expect(apart.provider!.smallModel()?.info.id).toBe("claude-haiku-4-5")
    expect(apart.provider!.getModel({ providerID: "anthropic", modelID: "claude-haiku-4-5" }).language).toBe(
      haiku,
    )
  })

  it("refuses a provider together with models, naming both", () => {
    const provider = createRuntime({ model: mockModel("openai.chat", "gpt-4.1") }).provider!
    const error = invalid(() => createRuntime({ provider, model: mockModel("openai.chat", "gpt-4.1") }))
    expect(error.data.message).toMatch(/provider.*model|model.*provider/)
    const both = invalid(() =>
      createRuntime({
        model: mockModel("openai.chat", "gpt-4.1"),
        models: [mockModel("openai.chat", "gpt-4.1")],
      }),
    )
    expect(both.data.issues.map((issue) => issue.path)).toContain("models")
  })

  it("refuses a model that is not an AI SDK model object", () => {
    const error = invalid(() => createRuntime({ models: [{ language: "gpt-4.1" } as never] }))
    expect(error.data.issues[0]?.path).toBe("models.0")
  })
})

describe("Provider.createProvider without info", () => {
  it("takes a known model's info from the catalogue", () => {
    const provider = Provider.createProvider({
      models: [
        {
          providerID: "anthropic",
          modelID: "claude-sonnet-4-5",
          language: mockModel("anthropic.messages", "claude-sonnet-4-5"),
        },
      ],
      default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
    })
    expect(provider.defaultModel().info.cost?.output).toBe(15)
  })
})
