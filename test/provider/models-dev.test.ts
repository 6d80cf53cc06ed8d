import { describe, expect, it } from "vitest"
import { InvalidInputError } from "../../src/error/index.js"
import { Provider } from "../../src/provider/index.js"

// Shaped like https://models.dev/api.json -> anthropic.models["claude-sonnet-4-5"], trimmed.
const sonnet = {
  id: "claude-sonnet-4-5",
  name: "Claude Sonnet 4.5",
  family: "claude-sonnet",
  attachment: true,
  reasoning: true,
  tool_call: true,
  temperature: true,
  knowledge: "2025-07-31",
  release_date: "2025-09-29",
  last_updated: "2025-09-29",
  modalities: { input: ["text", "image", "pdf"], output: ["text"] },
  open_weights: false,
  cost: {
    input: 3,
    output: 15,
    cache_read: 0.3,
    cache_write: 3.75,
    context_over_200k: { input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5 },
  },
  limit: { context: 200_000, output: 64_000 },
}

describe("Provider.modelInfoFromModelsDev", () => {
  it("maps a full catalog entry, ignoring fields it does not use", () => {
    expect(Provider.modelInfoFromModelsDev(sonnet, { providerID: "anthropic" })).toEqual({
      providerID: "anthropic",
      id: "claude-sonnet-4-5",
      name: "Claude Sonnet 4.5",
      limit: { context: 200_000, output: 64_000 },
      cost: {
        input: 3,
        output: 15,
        cache: { read: 0.3, write: 3.75 },
        over200K: { input: 6, output: 22.5, cache: { read: 0.6, write: 7.5 } },
      },
      capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
    })
  })

  it("leaves the prices of a model without cost unknown and keeps an input limit", () => {
    const local = {
      id: "qwen3-coder",
      name: "Qwen3 Coder",
      attachment: false,
      reasoning: false,
      tool_call: true,
      temperature: true,
      limit: { context: 262_144, input: 200_000, output: 65_536 },
    }
    expect(Provider.modelInfoFromModelsDev(local, { providerID: "ollama" })).toEqual({
      providerID: "ollama",
      id: "qwen3-coder",
      name: "Qwen3 Coder",
      limit: { context: 262_144, input: 200_000, output: 65_536 },
      capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
    })
  })

  it("treats missing cache prices as zero and has no long-context tier unless given", () => {
    const gpt = {
      ...sonnet,
      id: "gpt-5",
      name: "GPT-5",
      cost: { input: 1.25, output: 10, cache_read: 0.125 },
    }
    const mapped = Provider.modelInfoFromModelsDev(gpt, { providerID: "openai" })
    expect(mapped.cost).toEqual({ input: 1.25, output: 10, cache: { read: 0.125, write: 0 } })
  })

  it("reads tool support from the object form and defaults missing flags to false", () => {
    const entry = {
      id: "m",
      tool_call: { supported: true, streaming: true, parallel: false },
      limit: { context: 1_000, output: 100 },
    }
    const mapped = Provider.modelInfoFromModelsDev(entry, { providerID: "p" })
    expect(mapped.name).toBe("m")
    expect(mapped.capabilities).toEqual({
      reasoning: false,
      toolcall: true,
      attachment: false,
      temperature: false,
    })
  })

  it("produces info that the ModelInfo schema accepts", () => {
    const mapped = Provider.modelInfoFromModelsDev(sonnet, { providerID: "anthropic" })
    expect(Provider.ModelInfo.parse(mapped)).toEqual(mapped)
  })

  it("rejects an entry without limits or with a negative price, naming the field", () => {
    const broken = { ...sonnet, limit: undefined, cost: { ...sonnet.cost, input: -1 } }
    let caught: unknown
    try {
      Provider.modelInfoFromModelsDev(broken, { providerID: "anthropic" })
    } catch (error) {
      caught = error
    }
    expect(InvalidInputError.isInstance(caught)).toBe(true)
    const paths = (caught as InvalidInputError).data.issues.map((issue) => issue.path)
    expect(paths).toEqual(["cost.input", "limit"])
    expect((caught as InvalidInputError).message).toMatch(/^Invalid models\.dev model entry: /)
  })

  it("requires a provider ID", () => {
    expect(() => Provider.modelInfoFromModelsDev(sonnet, { providerID: "" })).toThrow(
      /Invalid models\.dev options: providerID/,
    )
  })
})
