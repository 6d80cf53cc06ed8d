import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { codingAgents } from "../../../src/agent/coding.js"
import { Permission } from "../../../src/index.js"
import { loadProjectConfig, overlayAgents } from "../../../src/tools/project-config/index.js"
import { md, type TempTree, tempTree } from "./helpers.js"

let tree: TempTree
beforeEach(async () => {
  tree = await tempTree()
  await tree.marker()
})
afterEach(() => tree.cleanup())

describe("overlayAgents", () => {
  it("lays a project file over the host's agent of that name, field by field, its rules last", async () => {
    await tree.put(".opencode/agent/plan.md", md("temperature: 0.1\npermission:\n  bash: allow", ""))
    await tree.put(".opencode/agent/reviewer.md", md("mode: primary", "Review."))
    const preset = codingAgents()
    const plan = preset.plan!
    const agents = overlayAgents(preset, (await loadProjectConfig(tree.root)).agents)
    expect(agents.plan).toMatchObject({
      name: "plan",
      mode: "primary",
      prompt: plan.prompt,
      temperature: 0.1,
    })
    expect(agents.plan?.permission).toEqual([
      ...plan.permission,
      { permission: "bash", pattern: "*", action: "allow" },
    ])
    expect(Permission.evaluate("edit", "a.ts", [...(agents.plan?.permission ?? [])]).action).toBe("deny")
    expect(agents.explore).toBe(preset.explore)
    expect(agents.reviewer).toMatchObject({ mode: "primary", prompt: "Review." })
  })
})
