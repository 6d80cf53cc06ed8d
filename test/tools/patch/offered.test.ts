import { describe, expect, it } from "vitest"
import { localOperations } from "../../../src/tools/local-operations.js"
import { applyPatchTool, usesApplyPatch } from "../../../src/tools/patch/index.js"

describe("usesApplyPatch", () => {
  it("is OpenCode's rule: a model ID with gpt-, except gpt-4 and the oss models", () => {
    const cases = {
      "gpt-5": true,
      "gpt-5.1-codex": true,
      "openai/gpt-5-mini": true,
      "gpt-4o": false,
      "gpt-4.1": false,
      "gpt-oss-120b": false,
      o3: false,
      "claude-sonnet-4": false,
    }
    expect(Object.fromEntries(Object.keys(cases).map((id) => [id, usesApplyPatch(id)]))).toEqual(cases)
  })
})

describe("applyPatchTool", () => {
  it("is offered to the models that use apply_patch, by model ID whatever the provider", () => {
    const tool = applyPatchTool({ directory: "/nowhere", operations: localOperations })
    expect(tool.id).toBe("apply_patch")
    expect(tool.offered?.({ providerID: "openai", modelID: "gpt-5" })).toBe(true)
    expect(tool.offered?.({ providerID: "azure", modelID: "gpt-5.1-codex" })).toBe(true)
    expect(tool.offered?.({ providerID: "openai", modelID: "gpt-4o" })).toBe(false)
    expect(tool.offered?.({ providerID: "anthropic", modelID: "claude-sonnet-4" })).toBe(false)
  })
})
