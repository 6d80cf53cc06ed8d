import { mkdir } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { loadProjectConfig } from "../../../src/tools/project-config/index.js"
import { md, type TempTree, tempTree, warnings } from "./helpers.js"

let tree: TempTree
beforeEach(async () => {
  tree = await tempTree()
})
afterEach(() => tree.cleanup())

describe("loadProjectConfig: where it looks", () => {
  it("reads agents and commands from every folder OpenCode and Claude Code use, named by their path", async () => {
    await tree.marker()
    await tree.put(".opencode/agent/review.md", md("description: Reviews", "Review."))
    await tree.put(".opencode/agents/docs/writer.md", md("description: Writes docs", "Write."))
    await tree.put(".claude/agents/tester.md", md("name: tester\ndescription: Tests", "Test."))
    await tree.put(".opencode/command/hello.md", "Say hello to $ARGUMENTS.")
    await tree.put(".opencode/commands/git/commit.md", md("description: Commit", "Commit it."))
    await tree.put(".claude/commands/fix.md", "Fix $1.")
    await tree.put(".opencode/agent/notes.txt", "not markdown")
    const loaded = await loadProjectConfig(tree.root)
    expect(Object.keys(loaded.agents).sort()).toEqual(["docs/writer", "review", "tester"])
    expect(Object.keys(loaded.commands).sort()).toEqual(["fix", "git/commit", "hello"])
    expect(loaded.files).toHaveLength(6)
    expect(loaded.files).toContain(tree.path(".opencode/commands/git/commit.md"))
  })

  it("finds .claude/commands two levels up, at the work tree's root", async () => {
    await tree.marker()
    await tree.put(".claude/commands/x.md", "Do x with $ARGUMENTS")
    await mkdir(tree.path("packages/app"), { recursive: true })
    const loaded = await loadProjectConfig(tree.path("packages/app"))
    expect(loaded.commands.x).toEqual({ template: "Do x with $ARGUMENTS" })
  })

  it("lets the nearest folder win a name both define", async () => {
    await tree.git()
    await tree.put(".opencode/agent/review.md", md("description: Far", "Far."))
    await tree.put("pkg/.opencode/agents/review.md", md("description: Near", "Near."))
    await tree.put(".opencode/command/go.md", "far")
    await tree.put("pkg/.claude/commands/go.md", "near")
    const loaded = await loadProjectConfig(tree.path("pkg"))
    expect(loaded.agents.review).toMatchObject({ description: "Near", prompt: "Near." })
    expect(loaded.commands.go?.template).toBe("near")
  })

  it("stops at the work tree's root", async () => {
    await tree.put(".opencode/command/outside.md", "outside")
    await tree.marker("repo")
    await tree.put("repo/.opencode/command/inside.md", "inside")
    const loaded = await loadProjectConfig(tree.path("repo/src"))
    expect(Object.keys(loaded.commands)).toEqual(["inside"])
  })

  it("reads only the directory itself outside a work tree, unless given a root", async () => {
    await tree.put(".opencode/command/up.md", "up")
    await tree.put("a/.opencode/command/here.md", "here")
    expect(Object.keys((await loadProjectConfig(tree.path("a"))).commands)).toEqual(["here"])
    const rooted = await loadProjectConfig(tree.path("a"), { root: tree.root })
    expect(Object.keys(rooted.commands).sort()).toEqual(["here", "up"])
  })

  it("returns nothing for a project without such folders", async () => {
    await tree.marker()
    expect(await loadProjectConfig(tree.root)).toEqual({ agents: {}, commands: {}, files: [] })
  })

  it("warns when two files of one folder define the same name, and takes OpenCode's over Claude's", async () => {
    await tree.marker()
    await tree.put(".claude/commands/go.md", "claude")
    await tree.put(".opencode/commands/go.md", "opencode")
    const { seen, onWarning } = warnings()
    const loaded = await loadProjectConfig(tree.root, { onWarning })
    expect(loaded.commands.go?.template).toBe("opencode")
    expect(seen).toHaveLength(1)
    expect(seen[0]).toContain(tree.path(".claude/commands/go.md"))
    expect(seen[0]).toContain(tree.path(".opencode/commands/go.md"))
  })

  it("leaves Claude Code's folders out with claude: false", async () => {
    await tree.marker()
    await tree.put(".claude/commands/go.md", "claude")
    await tree.put(".claude/agents/a.md", "A.")
    expect(await loadProjectConfig(tree.root, { claude: false })).toEqual({
      agents: {},
      commands: {},
      files: [],
    })
  })

  it("reads through the operations it is given", async () => {
    await tree.marker()
    await tree.put(".opencode/command/go.md", "go")
    const read: string[] = []
    const { localOperations } = await import("../../../src/tools/local-operations.js")
    const operations = {
      ...localOperations,
      readFile: (file: string, options?: { signal?: AbortSignal }) => {
        read.push(file)
        return localOperations.readFile(file, options)
      },
    }
    await loadProjectConfig(tree.root, { operations })
    expect(read).toEqual([tree.path(".opencode/command/go.md")])
  })
})
