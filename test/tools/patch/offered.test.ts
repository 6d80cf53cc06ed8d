import { describe, expect, it } from "vitest"
import { say } from "../../../src/testing/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { applyPatchTool, usesApplyPatch } from "../../../src/tools/patch/index.js"
import { runtimeOnModel } from "./helpers.js"

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

describe("apply_patch in a runtime", () => {
  const directory = "/nowhere/agentloop-offered"
  const sentTools = async (modelID: string) => {
    const { runtime, model } = runtimeOnModel(modelID, [[say.text("Hi")]], {
      directory,
      tools: [applyPatchTool({ directory, operations: localOperations })],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
    await runtime.close()
    return (model.calls[0]?.tools ?? []).map((tool) => tool.name)
  }

  it("is sent to a GPT-5 model's steps and not to gpt-4o's, gpt-oss's or Claude's", async () => {
    expect(await sentTools("gpt-5")).toContain("apply_patch")
    for (const modelID of ["gpt-4o", "gpt-oss-120b", "claude-sonnet-4"])
      expect(await sentTools(modelID), modelID).not.toContain("apply_patch")
  })
})
