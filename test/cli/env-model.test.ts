import { describe, expect, it } from "vitest"
import { modelFromEnvironment, type ProviderPackages } from "../../src/cli/env-model.js"
import { UsageError } from "../../src/cli/errors.js"
import { MissingPackageError } from "../../src/tools/index.js"

const notInstalled = (name: string) => () =>
  Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: "ERR_MODULE_NOT_FOUND" }))
const without: ProviderPackages = {
  anthropic: notInstalled("@ai-sdk/anthropic"),
  openai: notInstalled("@ai-sdk/openai"),
  compatible: notInstalled("@ai-sdk/openai-compatible"),
}

describe("modelFromEnvironment", () => {
  it("picks the provider of the key that is set, and the model AGENTLOOP_MODEL names", async () => {
    const anthropic = await modelFromEnvironment({ ANTHROPIC_API_KEY: "a" })
    expect(anthropic.model).toMatchObject({ provider: "anthropic.messages", modelId: "claude-sonnet-4-5" })
    expect(anthropic.label).toContain("ANTHROPIC_API_KEY")
    const openai = await modelFromEnvironment({ OPENAI_API_KEY: "o", AGENTLOOP_MODEL: "gpt-4.1" })
    expect(openai.model).toMatchObject({ modelId: "gpt-4.1" })
    const local = await modelFromEnvironment({
      AGENTLOOP_BASE_URL: "http://127.0.0.1:1/v1",
      OPENAI_API_KEY: "o",
    })
    expect(local.model).toMatchObject({ modelId: "default" })
    expect(local.label).toContain("http://127.0.0.1:1/v1")
  })

  it("names the package to install when the provider's is missing", async () => {
    const error = await modelFromEnvironment({ ANTHROPIC_API_KEY: "a" }, without).catch((e: unknown) => e)
    expect(MissingPackageError.isInstance(error)).toBe(true)
    expect((error as MissingPackageError).data).toMatchObject({
      packages: ["@ai-sdk/anthropic"],
      install: "npm install @ai-sdk/anthropic",
    })
    await expect(modelFromEnvironment({ AGENTLOOP_BASE_URL: "http://x" }, without)).rejects.toThrow(
      "npm install @ai-sdk/openai-compatible",
    )
  })

  it("passes on a failure other than the package missing", async () => {
    const broken = { ...without, openai: () => Promise.reject(new Error("syntax error in a dependency")) }
    await expect(modelFromEnvironment({ OPENAI_API_KEY: "o" }, broken)).rejects.toThrow("syntax error")
  })

  it("says which variables to set when none is", async () => {
    const error = await modelFromEnvironment({}).catch((e: unknown) => e)
    expect(UsageError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/ANTHROPIC_API_KEY.*OPENAI_API_KEY.*AGENTLOOP_BASE_URL/)
  })
})
