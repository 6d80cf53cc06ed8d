import { MockLanguageModelV3 } from "ai/test"
import { describe, expect, it } from "vitest"
import { parseInput } from "../../src/error/invalid-input.js"
import { ModelRef } from "../../src/message/part.js"
import { UnknownModelError } from "../../src/provider/errors.js"
import { Provider } from "../../src/provider/index.js"
import { invalid } from "./invalid.js"

const entry = (providerID: string, modelID: string) => ({
  providerID,
  modelID,
  language: new MockLanguageModelV3({ provider: providerID, modelId: modelID }),
  info: {
    providerID,
    id: modelID,
    name: modelID,
    limit: { context: 200_000, output: 8_192 },
    capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
  },
})

const provider = Provider.createProvider({
  models: [entry("openai", "gpt-5"), entry("a/b", "c"), entry("a", "b/c")],
  default: { providerID: "openai", modelID: "gpt-5" },
})

/** What getModel answered before it skipped the schema for well-formed references. */
function reference(ref: unknown): string {
  try {
    const { providerID, modelID } = parseInput("model reference", ModelRef, ref)
    return `model ${providerID}/${modelID}`
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}

function answer(ref: unknown): string {
  try {
    const model = provider.getModel(ref as ModelRef)
    return `model ${model.info.providerID}/${model.info.id}`
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}

class Ref {
  providerID = "openai"
  modelID = "gpt-5"
}

describe("Provider.getModel references", () => {
  it("returns the same model object for every lookup of a reference", () => {
    const first = provider.getModel({ providerID: "openai", modelID: "gpt-5" })
    expect(provider.getModel({ providerID: "openai", modelID: "gpt-5" })).toBe(first)
    expect(provider.defaultModel()).toBe(first)
  })

  it("keeps IDs with slashes apart", () => {
    expect(provider.getModel({ providerID: "a/b", modelID: "c" }).info.providerID).toBe("a/b")
    expect(provider.getModel({ providerID: "a", modelID: "b/c" }).info.id).toBe("b/c")
    expect(() => provider.getModel({ providerID: "a", modelID: "b" })).toThrow(UnknownModelError)
  })

  it("accepts and refuses what the model reference schema does, with its messages", () => {
    const refs: unknown[] = [
      { providerID: "openai", modelID: "gpt-5", extra: true },
      new Ref(),
      Object.create({ providerID: "openai", modelID: "gpt-5" }),
      Object.assign(Object.create(null), { providerID: "openai", modelID: "gpt-5" }),
      Object.assign(new Date(), { providerID: "openai", modelID: "gpt-5" }),
      Object.assign([], { providerID: "openai", modelID: "gpt-5" }),
      Object.assign(() => 1, { providerID: "openai", modelID: "gpt-5" }),
      { providerID: new String("openai"), modelID: "gpt-5" },
      { providerID: "", modelID: "gpt-5" },
      { providerID: "openai", modelID: "" },
      { providerID: "openai" },
      { modelID: 5 },
      {},
      null,
      undefined,
      "openai/gpt-5",
      42,
    ]
    for (const ref of refs) expect(answer(ref)).toBe(reference(ref))
    const error = invalid(() => provider.getModel({ providerID: "", modelID: "" }))
    expect(error.data.issues.map((issue) => issue.path)).toEqual(["providerID", "modelID"])
  })
})
