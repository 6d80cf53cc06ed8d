import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Permission } from "../../../src/index.js"
import { loadProjectConfig, ProjectConfigError } from "../../../src/tools/project-config/index.js"
import { md, type TempTree, tempTree, warnings } from "./helpers.js"

let tree: TempTree
beforeEach(async () => {
  tree = await tempTree()
  await tree.marker()
})
afterEach(() => tree.cleanup())

async function agent(file: string, text: string, onWarning?: (message: string) => void) {
  await tree.put(file, text)
  const loaded = await loadProjectConfig(tree.root, { onWarning: onWarning ?? (() => {}) })
  return Object.values(loaded.agents)[0]
}

async function failure(file: string, text: string): Promise<ProjectConfigError> {
  await tree.put(file, text)
  const error = await loadProjectConfig(tree.root).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(ProjectConfigError.isInstance(error)).toBe(true)
  return error as ProjectConfigError
}

const decide = (rules: readonly Permission.Rule[], permission: string, pattern = "x") =>
  Permission.evaluate(permission, pattern, [...rules]).action

describe("loadProjectConfig: OpenCode's agent files", () => {
  it("maps the front matter OpenCode documents and takes the body as the prompt", async () => {
    const loaded = await agent(
      ".opencode/agent/review.md",
      md(
        [
          "description: Reviews code for bugs",
          "mode: subagent",
          "model: anthropic/claude-sonnet-4-5",
          "temperature: 0.1",
          "top_p: 0.9",
          "steps: 5",
          "hidden: true",
          "color: '#ff0000'",
          "unknown_key: whatever",
        ].join("\n"),
        "\nYou review code.\n\n",
      ),
    )
    expect(loaded).toMatchObject({
      description: "Reviews code for bugs",
      mode: "subagent",
      model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" },
      temperature: 0.1,
      topP: 0.9,
      steps: 5,
      hidden: true,
      prompt: "You review code.",
    })
    expect(loaded).not.toHaveProperty("color")
    expect(loaded).not.toHaveProperty("unknown_key")
  })

  it("splits the model at its first slash, so an OpenRouter ID keeps its own", async () => {
    const loaded = await agent(".opencode/agent/a.md", md("model: openrouter/openai/gpt-5", "A."))
    expect(loaded?.model).toEqual({ providerID: "openrouter", modelID: "openai/gpt-5" })
  })

  it("takes maxSteps for steps", async () => {
    expect((await agent(".opencode/agent/a.md", md("maxSteps: 3", "A.")))?.steps).toBe(3)
  })

  it("starts a new agent from the built-in rules, so reading needs no approval", async () => {
    const loaded = await agent(".opencode/agent/a.md", md("description: A", "A."))
    const rules = loaded?.permission ?? []
    expect(decide(rules, "read", "src/a.ts")).toBe("allow")
    expect(decide(rules, "read", ".env")).toBe("ask")
    expect(decide(rules, "external_directory")).toBe("ask")
  })

  it("turns permission and the tools map into rules, tools first, write and patch as edit", async () => {
    const loaded = await agent(
      ".opencode/agent/a.md",
      md(
        [
          "tools:",
          "  write: false",
          "  patch: false",
          "  webfetch: false",
          "  bash: true",
          "permission:",
          "  bash:",
          "    '*': ask",
          "    'git status': allow",
          "  webfetch: allow",
        ].join("\n"),
        "A.",
      ),
    )
    const rules = loaded?.permission ?? []
    expect(decide(rules, "edit")).toBe("deny")
    expect(decide(rules, "bash", "rm -rf x")).toBe("ask")
    expect(decide(rules, "bash", "git status")).toBe("allow")
    expect(decide(rules, "webfetch")).toBe("allow")
    expect(rules).toContainEqual({ permission: "edit", pattern: "*", action: "deny" })
    expect(rules).not.toContainEqual(expect.objectContaining({ permission: "write" }))
  })

  it("reads a permission given as one action for everything", async () => {
    const rules = (await agent(".opencode/agent/a.md", md("permission: deny", "A.")))?.permission ?? []
    expect(decide(rules, "read")).toBe("deny")
    expect(decide(rules, "bash")).toBe("deny")
  })

  it("adds only the file's own rules when it overrides a built-in agent", async () => {
    const loaded = await agent(".opencode/agent/plan.md", md("permission:\n  bash: deny", "Plan."))
    expect(loaded?.permission).toEqual([{ permission: "bash", pattern: "*", action: "deny" }])
    expect(loaded).not.toHaveProperty("mode")
  })

  it("leaves out an agent with disable: true, even when a farther file defines it", async () => {
    await tree.put(".opencode/agent/gone.md", md("description: Far", "Far."))
    await tree.marker("pkg")
    await tree.put("pkg/.opencode/agent/gone.md", md("disable: true", ""))
    await tree.put("pkg/.opencode/agent/kept.md", "Kept.")
    const loaded = await loadProjectConfig(tree.path("pkg"), { root: tree.root })
    expect(Object.keys(loaded.agents)).toEqual(["kept"])
  })

  it("names the file and the field of a known key with a bad value", async () => {
    const error = await failure(".opencode/agent/hot.md", md("temperature: hot", "A."))
    expect(error.data.file).toBe(tree.path(".opencode/agent/hot.md"))
    expect(error.data.field).toBe("temperature")
    expect(error.message).toContain(tree.path(".opencode/agent/hot.md"))
    expect(error.message).toContain("temperature")
  })

  it.each([
    ["mode", "mode: boss"],
    ["permission", "permission:\n  bash: maybe"],
    ["model", "model: gpt-5"],
    ["tools", "tools:\n  bash: sometimes"],
    ["steps", "steps: 0"],
    ["description", "description: [a, b]"],
  ])("refuses a bad %s, naming the field", async (field, yaml) => {
    const error = await failure(".opencode/agent/a.md", md(yaml, "A."))
    expect(error.data.field).toBe(field)
    if (field === "model") expect(error.message).toContain("provider/model")
  })

  it("names the file when its front matter is not YAML", async () => {
    const error = await failure(".opencode/agent/broken.md", md("description: [oops", "A."))
    expect(error.data.file).toBe(tree.path(".opencode/agent/broken.md"))
    expect(error.data.field).toBeUndefined()
    expect(error.message).toContain(tree.path(".opencode/agent/broken.md"))
    expect(error.cause).toBeDefined()
  })

  it.each(["__proto__", "two words"])(
    "refuses the name %j, which no command line or runtime can hold",
    async (name) => {
      const error = await failure(`.opencode/agent/${name}.md`, "A.")
      expect(error.data.field).toBe("name")
    },
  )
})

describe("loadProjectConfig: Claude Code's agent files", () => {
  it("takes name, description and the body, as a sub-agent", async () => {
    const loaded = await loadProjectConfigOf(
      ".claude/agents/file-name.md",
      md("name: code-reviewer\ndescription: Use when: code changed", "You review."),
    )
    expect(loaded.agents["code-reviewer"]).toMatchObject({
      description: "Use when: code changed",
      mode: "subagent",
      prompt: "You review.",
    })
  })

  it("allows only the listed tools, under the usual rules", async () => {
    const loaded = await agent(
      ".claude/agents/r.md",
      md("name: r\ndescription: R\ntools: Read, Grep, Glob, Edit", "R."),
    )
    const rules = loaded?.permission ?? []
    expect(decide(rules, "read", "a.ts")).toBe("allow")
    expect(decide(rules, "read", ".env")).toBe("ask")
    expect(decide(rules, "grep")).toBe("allow")
    expect(decide(rules, "glob")).toBe("allow")
    expect(decide(rules, "edit")).toBe("allow")
    expect(decide(rules, "bash")).toBe("deny")
    expect(decide(rules, "webfetch")).toBe("deny")
    expect(decide(rules, "external_directory")).toBe("ask")
  })

  it("ignores Claude's model aliases with a warning naming the file", async () => {
    const { seen, onWarning } = warnings()
    const loaded = await agent(
      ".claude/agents/r.md",
      md("name: r\ndescription: R\nmodel: sonnet", "R."),
      onWarning,
    )
    expect(loaded).not.toHaveProperty("model")
    expect(seen).toHaveLength(1)
    expect(seen[0]).toContain(tree.path(".claude/agents/r.md"))
    expect(seen[0]).toContain("sonnet")
  })

  it("takes model: inherit as the default it means, without a warning", async () => {
    const { seen, onWarning } = warnings()
    const loaded = await agent(".claude/agents/r.md", md("name: r\nmodel: inherit", "R."), onWarning)
    expect(loaded).not.toHaveProperty("model")
    expect(seen).toEqual([])
  })
})

async function loadProjectConfigOf(file: string, text: string) {
  await tree.put(file, text)
  return loadProjectConfig(tree.root)
}
