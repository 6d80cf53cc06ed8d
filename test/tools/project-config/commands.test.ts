import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { loadProjectConfig, ProjectConfigError } from "../../../src/tools/project-config/index.js"
import { md, type TempTree, tempTree, warnings } from "./helpers.js"

let tree: TempTree
beforeEach(async () => {
  tree = await tempTree()
  await tree.marker()
})
afterEach(() => tree.cleanup())

describe("loadProjectConfig: command files", () => {
  it("maps OpenCode's front matter and takes the trimmed body as the template", async () => {
    await tree.put(
      ".opencode/command/test.md",
      md(
        "description: Run the tests\nagent: build\nmodel: openai/gpt-5\nsubtask: true\nunknown: 1",
        "\nRun the tests for $ARGUMENTS.\n",
      ),
    )
    const loaded = await loadProjectConfig(tree.root)
    expect(loaded.commands.test).toEqual({
      template: "Run the tests for $ARGUMENTS.",
      description: "Run the tests",
      agent: "build",
      model: { providerID: "openai", modelID: "gpt-5" },
      subtask: true,
    })
  })

  it("accepts Claude Code's argument-hint and allowed-tools, and ignores its model aliases with a warning", async () => {
    await tree.put(
      ".claude/commands/fix.md",
      md(
        "argument-hint: [issue-number]\nallowed-tools: Bash(git add:*), Bash(git status:*)\nmodel: haiku",
        "Fix #$1",
      ),
    )
    const { seen, onWarning } = warnings()
    const loaded = await loadProjectConfig(tree.root, { onWarning })
    expect(loaded.commands.fix).toEqual({ template: "Fix #$1" })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toContain("haiku")
  })

  it("refuses a command without a template, naming the file", async () => {
    await tree.put(".opencode/command/empty.md", md("description: Nothing", "\n  \n"))
    const error = await loadProjectConfig(tree.root).catch((caught: unknown) => caught)
    expect(ProjectConfigError.isInstance(error)).toBe(true)
    expect((error as ProjectConfigError).data).toMatchObject({
      file: tree.path(".opencode/command/empty.md"),
      field: "template",
    })
  })

  it("names the field of a bad value", async () => {
    await tree.put(".opencode/command/bad.md", md("subtask: sometimes", "Go."))
    const error = await loadProjectConfig(tree.root).catch((caught: unknown) => caught)
    expect((error as ProjectConfigError).data.field).toBe("subtask")
    expect((error as ProjectConfigError).message).toContain(tree.path(".opencode/command/bad.md"))
  })
})
