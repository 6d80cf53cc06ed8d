import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Permission } from "../../../src/index.js"
import { agentSkills, skillCommands } from "../../../src/tools/skills/index.js"
import { permissionHarness, rules } from "../helpers.js"
import { skillFile, skillTree } from "./helpers.js"

let tree: Awaited<ReturnType<typeof skillTree>>
beforeEach(async () => {
  tree = await skillTree()
  await tree.put(
    ".claude/skills/review-code/SKILL.md",
    skillFile(
      { name: "review-code", description: "Reviews code for bugs" },
      "# Review\n\nRun scripts/check.sh.\n",
    ),
  )
  await tree.put(".claude/skills/review-code/scripts/check.sh", "echo ok\n")
  await tree.put(".claude/skills/review-code/references/guide.md", "# Guide\n")
  await tree.put(
    ".agents/skills/internal-notes/SKILL.md",
    skillFile({ name: "internal-notes", description: "Team-only notes" }),
  )
})
afterEach(() => tree.cleanup())

const skillDir = () => join(tree.tree, ".claude/skills/review-code")

describe("agentSkills: the skill tool", () => {
  it("lists each available skill's name and description in its description", async () => {
    const { tool, catalog } = agentSkills({ directory: tree.directory })
    await catalog.load()
    const description = tool.describe({ ruleset: rules({}) })
    expect(description).toContain("<available_skills>")
    expect(description).toContain("<name>review-code</name>")
    expect(description).toContain("<description>Reviews code for bugs</description>")
    expect(description).toContain("<name>internal-notes</name>")
  })

  it("loads a skill: its body, base directory and a sample of its files; the name in the metadata", async () => {
    const { tool } = agentSkills({ directory: tree.directory })
    const harness = await permissionHarness(rules({}))
    // Never loaded: the first call loads the catalogue.
    const result = await harness.run(tool, { name: "review-code" })
    expect(result.title).toBe("Loaded skill: review-code")
    expect(result.metadata).toEqual({ name: "review-code", dir: skillDir() })
    const output = result.output
    expect(output).toMatch(
      /^<skill_content name="review-code">\n# Skill: review-code\n\n# Review\n\nRun scripts\/check\.sh\.\n/,
    )
    expect(output).toContain(`Base directory for this skill: ${pathToFileURL(skillDir()).href}`)
    expect(output).toContain(
      "Relative paths in this skill (e.g., scripts/, references/) are relative to this base directory.",
    )
    expect(output).toContain(`<file>${join(skillDir(), "scripts/check.sh")}</file>`)
    expect(output).toContain(`<file>${join(skillDir(), "references/guide.md")}</file>`)
    expect(output).not.toContain("SKILL.md</file>")
    expect(output.endsWith("</skill_content>")).toBe(true)
    expect(harness.requests).toEqual([{ permission: "skill", patterns: ["review-code"] }])
  })

  it("samples at most 10 files", async () => {
    for (let index = 0; index < 12; index++)
      await tree.put(`.claude/skills/review-code/assets/file-${index}.txt`, "x")
    const { tool } = agentSkills({ directory: tree.directory })
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(tool, { name: "review-code" })
    expect(result.output.match(/<file>/g)).toHaveLength(10)
  })

  it('{ skill: { "internal-*": "deny" } } hides the skill from the description and refuses to load it', async () => {
    const { tool, catalog } = agentSkills({ directory: tree.directory })
    await catalog.load()
    const denying = rules({ skill: { "internal-*": "deny" } })
    const description = tool.describe({ ruleset: denying })
    expect(description).toContain("<name>review-code</name>")
    expect(description).not.toContain("internal-notes")
    const harness = await permissionHarness(denying)
    const refused = await harness.run(tool, { name: "internal-notes" }).catch((error: unknown) => error)
    expect(Permission.DeniedError.isInstance(refused)).toBe(true)
    // Permission.fromConfig alone, as a host writes it, hides it too.
    expect(
      tool.describe({ ruleset: Permission.fromConfig({ skill: { "internal-*": "deny" } }) }),
    ).not.toContain("internal-notes")
  })

  it("an unknown name fails with the names it could have been", async () => {
    const { tool } = agentSkills({ directory: tree.directory })
    const harness = await permissionHarness(rules({}))
    await expect(harness.run(tool, { name: "nope" })).rejects.toThrow(
      'Skill "nope" not found. Available skills: internal-notes, review-code',
    )
  })

  it("says so when no skill is available", async () => {
    const empty = await skillTree()
    try {
      const { tool, catalog } = agentSkills({ directory: empty.directory })
      await catalog.load()
      expect(tool.describe({ ruleset: [] })).toContain("No skills are currently available.")
    } finally {
      await empty.cleanup()
    }
  })

  it("changes no file", () => {
    expect(agentSkills({ directory: tree.directory }).tool.fileChanges).toBe("none")
  })
})

describe("skillCommands", () => {
  it("makes each skill a slash command: its body and base directory", async () => {
    const { catalog } = agentSkills({ directory: tree.directory })
    await catalog.load()
    const commands = skillCommands(catalog)
    expect(Object.keys(commands).sort()).toEqual(["internal-notes", "review-code"])
    expect(commands["review-code"]).toEqual({
      description: "Reviews code for bugs",
      template: [
        "# Review\n\nRun scripts/check.sh.",
        "",
        `Base directory for this skill: ${skillDir()}`,
        "Relative paths in this skill (e.g., scripts/, references/) are relative to this base directory.",
      ].join("\n"),
    })
  })
})
