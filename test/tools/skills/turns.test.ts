import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { agentSkills } from "../../../src/tools/skills/index.js"
import { skillFile, skillTree } from "./helpers.js"

let tree: Awaited<ReturnType<typeof skillTree>>
beforeEach(async () => {
  tree = await skillTree()
})
afterEach(() => tree.cleanup())

/** The description the model was given for the skill tool in the call at `index`. */
function skillDescription(calls: readonly { tools?: readonly unknown[] }[], index: number): string {
  const tool = (calls[index]?.tools ?? []).find(
    (candidate) => (candidate as { name?: string }).name === "skill",
  ) as { description?: string } | undefined
  return tool?.description ?? ""
}

describe("agentSkills in a runtime", () => {
  it("lists a skill added between two turns in the second turn's description", async () => {
    await tree.put(
      ".claude/skills/first/SKILL.md",
      skillFile({ name: "first", description: "The first one" }),
    )
    const skills = agentSkills({ directory: tree.directory })
    const { runtime, model } = createTestRuntime({
      directory: tree.directory,
      tools: [skills.tool],
      instructions: [skills.instructions],
      turns: [[say.text("one")], [say.text("two")]],
    })
    try {
      const session = await runtime.session.create()
      await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
      await tree.put(
        ".agents/skills/second/SKILL.md",
        skillFile({ name: "second", description: "Added later" }),
      )
      await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "again" }] })
      const first = skillDescription(model.calls, 0)
      const second = skillDescription(model.calls, 1)
      expect(first).toContain("<name>first</name>")
      expect(first).not.toContain("<name>second</name>")
      expect(second).toContain("<name>first</name>")
      expect(second).toContain("<name>second</name>")
    } finally {
      await runtime.close()
    }
  })

  it("loads a skill through the runtime: the part's metadata names it", async () => {
    await tree.put(
      ".claude/skills/first/SKILL.md",
      skillFile({ name: "first", description: "The first one" }),
    )
    const skills = agentSkills({ directory: tree.directory })
    const { runtime } = createTestRuntime({
      directory: tree.directory,
      tools: [skills.tool],
      instructions: [skills.instructions],
      turns: [[say.toolCall("skill", { name: "first" })], [say.text("done")]],
    })
    try {
      const session = await runtime.session.create()
      await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "use it" }] })
      const parts = (await runtime.session.messages(session.id)).flatMap((message) => message.parts)
      const call = parts.find((part) => part.type === "tool" && part.tool === "skill")
      expect(call?.type === "tool" && call.state.status).toBe("completed")
      expect(call?.type === "tool" && call.state.status === "completed" && call.state.metadata).toMatchObject(
        {
          name: "first",
        },
      )
    } finally {
      await runtime.close()
    }
  })
})
