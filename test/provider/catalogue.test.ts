import { describe, expect, it } from "vitest"
import { Compaction } from "../../src/compaction/index.js"
import { Provider } from "../../src/provider/index.js"

describe("Provider.catalogueInfo", () => {
  it("knows a current model's prices, long-context prices and window", () => {
    const info = Provider.catalogueInfo({ providerID: "anthropic", modelID: "claude-sonnet-4-5" })
    expect(info).toMatchObject({
      providerID: "anthropic",
      id: "claude-sonnet-4-5",
      name: "Claude Sonnet 4.5",
      limit: { context: 200_000 },
      cost: {
        input: 3,
        output: 15,
        cache: { read: 0.3, write: 3.75 },
        over200K: { input: 6, output: 22.5, cache: { read: 0.6, write: 7.5 } },
      },
      capabilities: { toolcall: true, attachment: true },
    })
  })

  it("finds dated snapshots by the catalogue's own match rules", () => {
    const info = Provider.catalogueInfo({ providerID: "anthropic", modelID: "claude-sonnet-4-5-20250929" })
    expect(info?.id).toBe("claude-sonnet-4-5-20250929")
    expect(info?.cost?.input).toBe(3)
  })

  it("prices Azure as OpenAI, Vertex's Claude as Anthropic and routers' vendor/model IDs as the vendor", () => {
    const openai = Provider.catalogueInfo({ providerID: "openai", modelID: "gpt-4.1" })
    expect(openai?.cost?.input).toBeGreaterThan(0)
    expect(Provider.catalogueInfo({ providerID: "azure", modelID: "gpt-4.1" })?.cost).toEqual(openai?.cost)
    const sonnet = Provider.catalogueInfo({ providerID: "anthropic", modelID: "claude-sonnet-4-5" })?.cost
    expect(
      Provider.catalogueInfo({ providerID: "google-vertex-anthropic", modelID: "claude-sonnet-4-5" })?.cost,
    ).toEqual(sonnet)
    const routed = Provider.catalogueInfo({ providerID: "gateway", modelID: "anthropic/claude-sonnet-4-5" })
    expect(routed).toMatchObject({ providerID: "gateway", id: "anthropic/claude-sonnet-4-5", cost: sonnet })
  })

  it("gives each caller its own info: changing one leaves the catalogue as it was", () => {
    const ref = { providerID: "anthropic", modelID: "claude-sonnet-4-5" }
    const first = Provider.catalogueInfo(ref)!
    first.cost!.input = 1_000
    first.cost!.cache.read = 1_000
    expect(Provider.catalogueInfo(ref)?.cost).toMatchObject({ input: 3, cache: { read: 0.3 } })
  })

  it("knows every provider's models, each with its name and prices", () => {
    const known = {
      anthropic: "claude-3-5-haiku-latest",
      openai: "gpt-4.1",
      google: "gemini-2.5-pro",
      xai: "grok-4",
      mistral: "mistral-large-latest",
      deepseek: "deepseek-chat",
      groq: "llama-3.3-70b-versatile",
      cohere: "command-r-plus",
      moonshotai: "kimi-k2-0905-preview",
      perplexity: "sonar",
      cerebras: "llama-3.3-70b",
    }
    for (const [providerID, modelID] of Object.entries(known)) {
      const info = Provider.catalogueInfo({ providerID, modelID })
      expect(info, `${providerID}/${modelID}`).toMatchObject({
        providerID,
        id: modelID,
        name: expect.any(String),
      })
      expect(info?.cost?.input, `${providerID}/${modelID}`).toBeGreaterThanOrEqual(0)
    }
  })

  it("knows nothing of a model outside the catalogue", () => {
    expect(Provider.catalogueInfo({ providerID: "acme", modelID: "acme-1" })).toBeUndefined()
    expect(Provider.catalogueSource).toEqual({
      package: "@pydantic/genai-prices",
      version: expect.any(String),
    })
  })
})

describe("Compaction with an unknown window", () => {
  it("never compacts ahead of the provider when the model has no limit", () => {
    const model = { limit: undefined }
    expect(Compaction.usable(model)).toBe(Number.POSITIVE_INFINITY)
    const tokens = { input: 5_000_000, output: 0, cache: { read: 0, write: 0 } }
    expect(Compaction.isOverflow({ tokens, model })).toBe(false)
    expect(Compaction.tailBudget(model)).toBe(8_000)
  })
})
