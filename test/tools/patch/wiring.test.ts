import { describe, expect, it } from "vitest"
import { say } from "../../../src/testing/index.js"
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
})
