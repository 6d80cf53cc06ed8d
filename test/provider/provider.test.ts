import { MockLanguageModelV3 } from "ai/test"
import { describe, expect, it } from "vitest"
import { Provider } from "../../src/provider/index.js"
import { invalid } from "./invalid.js"

function info(providerID: string, id: string): Provider.ModelInfo {
  return {
    providerID,
    id,
    name: id,
    limit: { context: 200_000, output: 8_192 },
    cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
    capabilities: { reasoning: true, toolcall: true, attachment: true, temperature: true },
  }
}

function entry(providerID: string, modelID: string) {
  return {
    providerID,
    modelID,
    language: new MockLanguageModelV3({ provider: providerID, modelId: modelID }),
    info: info(providerID, modelID),
  }
}

const sonnet = entry("anthropic", "claude-sonnet-4-5")
const haiku = entry("anthropic", "claude-haiku-4-5")
const gpt = entry("openai", "gpt-5")

describe("Provider.createProvider", () => {
  const provider = Provider.createProvider({
    models: [sonnet, haiku, gpt],
    default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
    small: { providerID: "anthropic", modelID: "claude-haiku-4-5" },
  })

  it("returns the listed model's language model and info, synchronously", () => {
    const model = provider.getModel({ providerID: "openai", modelID: "gpt-5" })
    expect(model.language).toBe(gpt.language)
    expect(model.info).toEqual(info("openai", "gpt-5"))
  })

  it("returns the configured default and small models", () => {
    expect(provider.defaultModel().language).toBe(sonnet.language)
    expect(provider.smallModel()?.language).toBe(haiku.language)
  })

  it("has no small model when none is configured (titles then stay off)", () => {
    const single = Provider.createProvider({
      models: [sonnet, gpt],
      default: { providerID: "openai", modelID: "gpt-5" },
    })
    expect(single.smallModel()).toBeUndefined()
  })

  it("accepts a model ID string for the AI SDK's global provider", () => {
    const gateway = Provider.createProvider({
      models: [
        {
          providerID: "gateway",
          modelID: "openai/gpt-5",
          language: "openai/gpt-5",
          info: info("gateway", "openai/gpt-5"),
        },
      ],
      default: { providerID: "gateway", modelID: "openai/gpt-5" },
    })
    expect(gateway.defaultModel().language).toBe("openai/gpt-5")
  })

  it("throws UnknownModelError listing the known models", () => {
    let caught: unknown
    try {
      provider.getModel({ providerID: "anthropic", modelID: "claude-opus-9" })
    } catch (error) {
      caught = error
    }
    expect(Provider.UnknownModelError.isInstance(caught)).toBe(true)
    const error = caught as Provider.UnknownModelError
    expect(error.data).toEqual({
      providerID: "anthropic",
      modelID: "claude-opus-9",
      known: ["anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5", "openai/gpt-5"],
      message:
        "Unknown model anthropic/claude-opus-9. Known models: anthropic/claude-sonnet-4-5, anthropic/claude-haiku-4-5, openai/gpt-5",
    })
    expect(error.message).toBe(error.data.message)
    expect(error.toObject().name).toBe("UnknownModelError")
  })

  it("does not confuse model IDs that contain a slash", () => {
    const routed = Provider.createProvider({
      models: [
        entry("openrouter", "anthropic/claude-sonnet-4"),
        entry("openrouter/anthropic", "claude-sonnet-4"),
      ],
      default: { providerID: "openrouter", modelID: "anthropic/claude-sonnet-4" },
    })
    expect(
      routed.getModel({ providerID: "openrouter/anthropic", modelID: "claude-sonnet-4" }).info.providerID,
    ).toBe("openrouter/anthropic")
    expect(routed.defaultModel().info.providerID).toBe("openrouter")
  })

  it("rejects a malformed model reference with InvalidInputError", () => {
    const error = invalid(() => provider.getModel({ providerID: "", modelID: "gpt-5" }))
    expect(error.data.issues.map((issue) => issue.path)).toEqual(["providerID"])
  })
})

describe("Provider.createProvider validation", () => {
  it("requires the default model to be listed", () => {
    const error = invalid(() =>
      Provider.createProvider({ models: [sonnet], default: { providerID: "openai", modelID: "gpt-5" } }),
    )
    expect(error.data.issues).toEqual([
      {
        path: "default",
        message: "openai/gpt-5 is not one of the listed models (anthropic/claude-sonnet-4-5)",
      },
    ])
  })

  it("requires the small model to be listed", () => {
    const error = invalid(() =>
      Provider.createProvider({
        models: [sonnet],
        default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
        small: { providerID: "anthropic", modelID: "claude-haiku-4-5" },
      }),
    )
    expect(error.data.issues.map((issue) => issue.path)).toEqual(["small"])
  })

  it("requires each info to describe its own entry", () => {
    const error = invalid(() =>
      Provider.createProvider({
        models: [{ ...sonnet, info: info("openai", "gpt-5") }],
        default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
      }),
    )
    expect(error.data.issues).toEqual([
      { path: "models.0.info.providerID", message: 'Must equal the entry\'s providerID "anthropic"' },
      { path: "models.0.info.id", message: 'Must equal the entry\'s modelID "claude-sonnet-4-5"' },
    ])
  })

  it("rejects duplicate models", () => {
    const error = invalid(() =>
      Provider.createProvider({
        models: [sonnet, gpt, sonnet],
        default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
      }),
    )
    expect(error.data.issues).toEqual([
      { path: "models.2", message: "Duplicate model anthropic/claude-sonnet-4-5" },
    ])
  })

  it("names the field of a bad model info or language model", () => {
    const error = invalid(() =>
      Provider.createProvider({
        models: [
          {
            ...sonnet,
            language: {} as never,
            info: { ...sonnet.info, limit: { context: -1, output: 8_192 } },
          },
        ],
        default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
      }),
    )
    expect(error.data.issues.map((issue) => issue.path)).toEqual([
      "models.0.language",
      "models.0.info.limit.context",
    ])
    expect(error.message).toContain(
      "Invalid provider options: models.0.language: Expected an AI SDK language model",
    )
  })

  it("requires at least one model", () => {
    const error = invalid(() =>
      Provider.createProvider({
        models: [],
        default: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
      }),
    )
    // The default cannot be listed either, and both problems are reported at once.
    expect(error.data.issues.map((issue) => issue.path)).toEqual(["models", "default"])
  })
})
