import { describe, expect, it } from "vitest"
import { createProvider, createRuntime, MemoryStorage } from "../../../src/index.js"
import { say, scriptedModel, testModelInfo } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { memoryOperations } from "../memory-operations.js"
import { runtimeOnModel } from "./helpers.js"

const directory = "/nowhere/agentloop-wiring"
const EDITING = ["apply_patch", "edit", "write"]

/** The file-changing tools a model is sent at its first step, sorted. */
async function sent(modelID: string, editTools?: "auto" | "edit" | "patch") {
  const options = {
    directory,
    operations: memoryOperations().operations,
    ...(editTools ? { editTools } : {}),
  }
  const { runtime, model } = runtimeOnModel(modelID, [[say.text("Hi")]], {
    directory,
    tools: codingTools(options),
  })
  const session = await runtime.session.create()
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
  await runtime.close()
  const names = (model.calls[0]?.tools ?? []).map((tool) => tool.name)
  return names.filter((name) => EDITING.includes(name)).sort()
}

describe("codingTools' edit tools per model", () => {
  it("gives GPT-5 apply_patch, the others edit and write; editTools forces either set", async () => {
    expect(await sent("gpt-5")).toEqual(["apply_patch"])
    expect(await sent("gpt-5.1-codex")).toEqual(["apply_patch"])
    for (const id of ["gpt-4o", "gpt-oss-120b", "o3", "claude-sonnet-4"])
      expect(await sent(id), id).toEqual(["edit", "write"])
    expect(await sent("gpt-5", "edit")).toEqual(["edit", "write"])
    expect(await sent("claude-sonnet-4", "patch")).toEqual(["apply_patch"])
  })

  it("goes by the provider's model ID, not the runtime's alias for the model", async () => {
    const language = scriptedModel([[say.text("Hi")]], { modelId: "gpt-5" })
    const ref = { providerID: "openai", modelID: "default" }
    const info = { ...testModelInfo, ...ref, id: "default", name: "default" }
    const provider = createProvider({ models: [{ ...ref, language, info }], default: ref })
    const tools = codingTools({ directory, operations: memoryOperations().operations })
    const runtime = createRuntime({ directory, tools, provider, storage: new MemoryStorage() })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
    await runtime.close()
    const names = (language.calls[0]?.tools ?? []).map((tool) => tool.name)
    expect(names.filter((name) => EDITING.includes(name))).toEqual(["apply_patch"])
  })
})
