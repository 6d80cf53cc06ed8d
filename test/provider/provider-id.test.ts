import { MockLanguageModelV3 } from "ai/test"
import { describe, expect, it } from "vitest"
import { Provider } from "../../src/provider/index.js"

describe("Provider.providerIDOf", () => {
  it.each([
    ["anthropic.messages", "anthropic"],
    ["openai.responses", "openai"],
    ["openai.chat", "openai"],
    ["azure.responses", "azure"],
    ["google.generative-ai", "google"],
    ["google.vertex.chat", "google-vertex"],
    ["vertex.anthropic.messages", "google-vertex-anthropic"],
    ["amazon-bedrock", "amazon-bedrock"],
    ["bedrock.anthropic.messages", "amazon-bedrock"],
    ["xai.responses", "xai"],
    ["mistral.chat", "mistral"],
    ["groq.chat", "groq"],
    ["deepseek.chat", "deepseek"],
    ["gateway", "gateway"],
    ["my-proxy.chat", "my-proxy"],
  ])("reads %s as %s", (reported, expected) => {
    expect(Provider.providerIDOf(reported)).toBe(expected)
  })
})

describe("Provider.modelRefOf", () => {
  it("takes the IDs from the AI SDK model itself", () => {
    const model = new MockLanguageModelV3({ provider: "openai.responses", modelId: "gpt-4.1" })
    expect(Provider.modelRefOf(model)).toEqual({ providerID: "openai", modelID: "gpt-4.1" })
  })
})
