import { writeFile } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { instructionFiles } from "../../../src/tools/instructions/index.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { block, instructionTree, systemOf } from "./tree.js"

let tree: Awaited<ReturnType<typeof instructionTree>>
beforeEach(async () => {
  tree = await instructionTree()
})
afterEach(() => tree.cleanup())

describe("instructionFiles in a runtime", () => {
  it("puts the files in the system prompt after the environment, read again at each turn but not within one", async () => {
    const agents = await tree.put("repo/AGENTS.md", "Version one.")
    const files = instructionFiles({ operations: localOperations, directory: tree.directory, global: false })
    // A tool that edits the file half way through a turn.
    const edit = Tool.define("edit_rules", {
      description: "Edits the rules",
      parameters: z.object({}),
      async execute() {
        await writeFile(agents, "Version two.")
        return "edited"
      },
    })
    const { runtime, model } = createTestRuntime({
      directory: tree.directory,
      environment: "workspace",
      instructions: [files.source, "Be brief."],
      tools: [edit],
      turns: [[say.toolCall("edit_rules", {})], [say.text("Edited.")], [say.text("Next turn.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "edit" }] })

    const first = systemOf(model.calls[0]).join("\n")
    expect(first).toContain(block(agents, "Version one."))
    expect(first.indexOf("<env>")).toBeLessThan(first.indexOf("Instructions from:"))
    expect(first.indexOf(block(agents, "Version one."))).toBeLessThan(first.indexOf("Be brief."))
    // The second step of the same turn: the edit is not seen yet.
    expect(systemOf(model.calls[1])).toEqual(systemOf(model.calls[0]))

    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "again" }] })
    const next = systemOf(model.calls[2]).join("\n")
    expect(next).toContain(block(agents, "Version two."))
    expect(next).not.toContain("Version one.")
  })
})
