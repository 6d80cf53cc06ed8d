import type { LanguageModelUsage, ProviderMetadata } from "ai"
import { describe, expect, it } from "vitest"
import type { Provider } from "../../src/provider/index.js"
import { getUsage } from "../../src/session/usage.js"

const sonnet: Provider.ModelInfo = {
  providerID: "anthropic",
  id: "claude-sonnet-4-5",
  name: "Claude Sonnet 4.5",
  limit: { context: 1_000_000, output: 64_000 },
  cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
  capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
}

const tiered: Provider.ModelInfo = {
  ...sonnet,
  cost: { ...sonnet.cost!, over200K: { input: 6, output: 22.5, cache: { read: 0.6, write: 7.5 } } },
}

function usage(input: {
  input?: number
  output?: number
  cacheRead?: number
  cacheWrite?: number
  reasoning?: number
}): LanguageModelUsage {
  return {
    inputTokens: input.input,
    inputTokenDetails: {
      noCacheTokens: undefined,
      cacheReadTokens: input.cacheRead,
      cacheWriteTokens: input.cacheWrite,
    },
    outputTokens: input.output,
    outputTokenDetails: { textTokens: undefined, reasoningTokens: input.reasoning },
    totalTokens: undefined,
  }
}

describe("Session.getUsage", () => {
  it("prices 1M input and 100K output at $3/$15 per million as exactly 4.5", () => {
    const result = getUsage({ model: sonnet, usage: usage({ input: 1_000_000, output: 100_000 }) })
    expect(result).toEqual({
      cost: 4.5,
      tokens: { input: 1_000_000, output: 100_000, reasoning: 0, cache: { read: 0, write: 0 } },
    })
  })

  it("adds decimals without floating point drift", () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004.
    const model = { ...sonnet, cost: { input: 0.1, output: 0.2, cache: { read: 0, write: 0 } } }
    expect(getUsage({ model, usage: usage({ input: 1_000_000, output: 1_000_000 }) }).cost).toBe(0.3)
  })

  it("takes cache reads and writes out of input and prices them separately", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({ input: 100_000, cacheRead: 60_000, cacheWrite: 20_000, output: 1_000 }),
    })
    expect(result.tokens).toEqual({
      input: 20_000,
      output: 1_000,
      reasoning: 0,
      cache: { read: 60_000, write: 20_000 },
    })
    // 20k x 3 + 1k x 15 + 60k x 0.3 + 20k x 3.75, per million
    expect(result.cost).toBe(0.168)
  })

  it("takes reasoning out of output and prices it as output", () => {
    const result = getUsage({ model: sonnet, usage: usage({ input: 0, output: 10_000, reasoning: 4_000 }) })
    expect(result.tokens).toEqual({ input: 0, output: 6_000, reasoning: 4_000, cache: { read: 0, write: 0 } })
    expect(result.cost).toBe(0.15)
  })

  it("uses the over-200K prices once the whole prompt exceeds 200,000 tokens", () => {
    const result = getUsage({
      model: tiered,
      usage: usage({ input: 250_000, cacheRead: 100_000, cacheWrite: 50_000, output: 10_000 }),
    })
    expect(result.tokens.input).toBe(100_000)
    // 100k x 6 + 10k x 22.5 + 100k x 0.6 + 50k x 7.5, per million
    expect(result.cost).toBe(1.26)
  })

  it("keeps base prices at exactly 200,000 prompt tokens", () => {
    const result = getUsage({ model: tiered, usage: usage({ input: 200_000, output: 0 }) })
    expect(result.cost).toBe(0.6)
    const above = getUsage({ model: tiered, usage: usage({ input: 200_001, output: 0 }) })
    expect(above.cost).toBe(1.200006)
  })

  it("keeps base prices above 200,000 tokens when the model has no tier", () => {
    expect(getUsage({ model: sonnet, usage: usage({ input: 300_000 }) }).cost).toBe(0.9)
  })

  it("turns NaN, infinite, negative and missing counts into 0", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({
        input: Number.NaN,
        output: -5,
        cacheRead: Number.POSITIVE_INFINITY,
        reasoning: undefined,
      }),
    })
    expect(result).toEqual({
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    })
    const empty = getUsage({ model: sonnet, usage: usage({}) })
    expect(empty).toEqual(result)
  })

  it("never reports negative input when details exceed the total", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({ input: 100, cacheRead: 300, output: 10, reasoning: 50 }),
    })
    // Reasoning larger than the output cannot be inside it: the output is kept whole.
    expect(result.tokens).toEqual({ input: 0, output: 10, reasoning: 50, cache: { read: 300, write: 0 } })
  })

  it("reads cache writes from Anthropic, Bedrock and Venice metadata when details lack them", () => {
    const base = usage({ input: 10_000, output: 0 })
    const cases: ProviderMetadata[] = [
      { anthropic: { cacheCreationInputTokens: 4_000 } },
      { bedrock: { usage: { cacheWriteInputTokens: 4_000 } } },
      { venice: { usage: { cacheCreationInputTokens: 4_000 } } },
    ]
    for (const metadata of cases) {
      const result = getUsage({ model: sonnet, usage: base, metadata })
      expect(result.tokens).toEqual({
        input: 6_000,
        output: 0,
        reasoning: 0,
        cache: { read: 0, write: 4_000 },
      })
      expect(result.cost).toBe(0.033)
    }
  })

  it("reads cache writes of Anthropic on Vertex, which reports them under the vertex key", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({ input: 10_000, output: 0 }),
      metadata: { vertex: { cacheCreationInputTokens: 4_000 } },
    })
    expect(result.tokens).toEqual({ input: 6_000, output: 0, reasoning: 0, cache: { read: 0, write: 4_000 } })
    expect(result.cost).toBe(0.033)
  })

  it("prefers the SDK's cache write count over metadata", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({ input: 10_000, cacheWrite: 1_000 }),
      metadata: { anthropic: { cacheCreationInputTokens: 4_000 } },
    })
    expect(result.tokens.cache.write).toBe(1_000)
  })

  it("ignores metadata of the wrong shape", () => {
    const result = getUsage({
      model: sonnet,
      usage: usage({ input: 10_000 }),
      metadata: { anthropic: { cacheCreationInputTokens: "4000" }, bedrock: { usage: null } },
    })
    expect(result.tokens.cache.write).toBe(0)
  })
})

describe("getUsage with reasoning counted beside the output", () => {
  const model: Parameters<typeof getUsage>[0]["model"] = {
    providerID: "xai",
    id: "grok",
    name: "Grok",
    limit: { context: 100_000, output: 10_000 },
    cost: { input: 3, output: 15, cache: { read: 0.3, write: 0 } },
    capabilities: { reasoning: true, toolcall: true, attachment: false, temperature: true },
  }
  const usage = (outputTokens: number, reasoningTokens: number): LanguageModelUsage => ({
    inputTokens: 12,
    inputTokenDetails: { noCacheTokens: 1, cacheReadTokens: 11, cacheWriteTokens: 0 },
    outputTokens,
    outputTokenDetails: { textTokens: undefined, reasoningTokens },
    totalTokens: 12 + outputTokens,
  })

  it("keeps the output whole when the reasoning is larger than it (xAI reports them apart)", () => {
    const result = getUsage({ model, usage: usage(2, 340) })
    expect(result.tokens).toMatchObject({ input: 1, output: 2, reasoning: 340 })
    // 1 x $3 + 2 x $15 + 340 x $15 + 11 x $0.30, per million
    expect(result.cost).toBe(0.0051363)
  })

  it("subtracts reasoning that fits inside the output", () => {
    expect(getUsage({ model, usage: usage(400, 340) }).tokens).toMatchObject({ output: 60, reasoning: 340 })
  })
})
