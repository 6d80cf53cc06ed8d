import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type CallOptions, createTestRuntime, say } from "../../../src/testing/index.js"
import { loadProjectConfig } from "../../../src/tools/project-config/index.js"
import { md, type TempTree, tempTree } from "./helpers.js"

let tree: TempTree
beforeEach(async () => {
  tree = await tempTree()
  tree.git()
})
afterEach(() => tree.cleanup())

const systemOf = (call: CallOptions | undefined) =>
  (call?.prompt ?? [])
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n")

const userTextOf = (call: CallOptions | undefined) =>
  JSON.stringify((call?.prompt ?? []).filter((message) => message.role === "user"))

describe("markdown agents and commands in a runtime", () => {
  it("runs a prompt with a markdown agent: its prompt in the system prompt, its temperature sent", async () => {
    await tree.put(
      ".opencode/agent/reviewer.md",
      md(
        "description: Reviews code\nmode: primary\ntemperature: 0.3",
        "You are the project's strict reviewer.",
      ),
    )
    const loaded = await loadProjectConfig(tree.root)
    const { runtime, model } = createTestRuntime({
      agents: loaded.agents,
      turns: [[say.text("Looks fine.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      agent: "reviewer",
      parts: [{ type: "text", text: "Review" }],
    })
    expect(systemOf(model.calls[0])).toContain("You are the project's strict reviewer.")
    expect(model.calls[0]?.temperature).toBe(0.3)
  })

  it("runs a markdown command with its arguments in the template", async () => {
    await tree.put("sub/dir/.keep", "")
    await tree.put(
      ".claude/commands/explain.md",
      md("description: Explain a file", "Explain $ARGUMENTS in detail."),
    )
    const loaded = await loadProjectConfig(tree.path("sub/dir"))
    const { runtime, model } = createTestRuntime({
      commands: loaded.commands,
      turns: [[say.text("It is...")]],
    })
    const session = await runtime.session.create()
    await runtime.session.command({ sessionID: session.id, command: "explain", arguments: "src/a.ts" })
    expect(userTextOf(model.calls[0])).toContain("Explain src/a.ts in detail.")
  })

  it("lets the host's own agents and commands win when spread after the loaded ones", async () => {
    await tree.put(".opencode/agent/reviewer.md", md("mode: primary", "From the project."))
    await tree.put(".opencode/command/go.md", "project go")
    const loaded = await loadProjectConfig(tree.root)
    const { runtime, model } = createTestRuntime({
      agents: { ...loaded.agents, reviewer: { mode: "primary", prompt: "From the host." } },
      commands: { ...loaded.commands, go: { template: "host go" } },
      turns: [[say.text("ok")]],
    })
    const session = await runtime.session.create()
    await runtime.session.command({ sessionID: session.id, command: "go", agent: "reviewer" })
    expect(systemOf(model.calls[0])).toContain("From the host.")
    expect(systemOf(model.calls[0])).not.toContain("From the project.")
    expect(userTextOf(model.calls[0])).toContain("host go")
  })
})
