import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  createSkillCatalog,
  InvalidSkillsError,
  type SkillOptions,
  type SkillWarning,
} from "../../../src/tools/skills/index.js"
import { skillFile, skillTree } from "./helpers.js"

let tree: Awaited<ReturnType<typeof skillTree>>
beforeEach(async () => {
  tree = await skillTree()
})
afterEach(() => tree.cleanup())

const catalog = (options: Partial<SkillOptions> = {}) =>
  createSkillCatalog({ directory: tree.directory, ...options })

describe("createSkillCatalog: where skills are found", () => {
  it("finds .claude/skills/<name>/SKILL.md two levels up, at the work tree's root", async () => {
    const location = await tree.put(
      ".claude/skills/review-code/SKILL.md",
      skillFile(
        {
          name: "review-code",
          description: "Reviews code for bugs",
          license: "MIT",
          "allowed-tools": "Bash(git:*) Read",
          metadata: '{ author: team, version: "1.0" }',
          "x-unknown": "fine",
        },
        "# Review\n\nRead the diff.\n",
      ),
    )
    const skills = await catalog().load()
    expect(skills).toEqual([
      {
        name: "review-code",
        description: "Reviews code for bugs",
        license: "MIT",
        allowedTools: ["Bash(git:*)", "Read"],
        metadata: { author: "team", version: "1.0" },
        location,
        directory: join(tree.tree, ".claude/skills/review-code"),
        content: "# Review\n\nRead the diff.",
      },
    ])
  })

  it("looks in .opencode/skill, .opencode/skills, .claude/skills and .agents/skills, nearest folder first, not above the work tree", async () => {
    await tree.put("a/b/.agents/skills/near/SKILL.md", skillFile({ name: "near", description: "Near" }))
    await tree.put("a/.opencode/skill/middle/SKILL.md", skillFile({ name: "middle", description: "Middle" }))
    await tree.put(".opencode/skills/top/SKILL.md", skillFile({ name: "top", description: "Top" }))
    await tree.put(
      ".claude/skills/group/grouped/SKILL.md",
      skillFile({ name: "grouped", description: "In a group folder" }),
    )
    // Above the work tree's root (the folder holding .git): not the project's.
    await tree.put("../.claude/skills/outside/SKILL.md", skillFile({ name: "outside", description: "Out" }))
    const names = (await catalog().load()).map((skill) => skill.name)
    expect(names).toEqual(["near", "middle", "top", "grouped"])
  })

  it("without .git up the tree looks in the directory alone", async () => {
    const { rm } = await import("node:fs/promises")
    await rm(join(tree.tree, ".git"), { recursive: true })
    await tree.put(".claude/skills/up/SKILL.md", skillFile({ name: "up", description: "Up" }))
    await tree.put("a/b/.claude/skills/here/SKILL.md", skillFile({ name: "here", description: "Here" }))
    expect((await catalog().load()).map((skill) => skill.name)).toEqual(["here"])
  })

  it("then the host's folders, then the host's skill objects", async () => {
    await tree.put(".claude/skills/project/SKILL.md", skillFile({ name: "project", description: "P" }))
    const shared = join(tree.root, "shared")
    await tree.put("../shared/from-dir/SKILL.md", skillFile({ name: "from-dir", description: "D" }))
    const skills = await catalog({
      dirs: [shared],
      skills: [{ name: "inline", description: "Given by the host", content: "Be inline." }],
    }).load()
    expect(skills.map((skill) => skill.name)).toEqual(["project", "from-dir", "inline"])
    expect(skills[2]).toEqual({ name: "inline", description: "Given by the host", content: "Be inline." })
  })

  it("re-reads on each load: a new or changed skill is seen", async () => {
    const skills = catalog()
    expect(await skills.load()).toEqual([])
    expect(skills.skills()).toEqual([])
    await tree.put(".agents/skills/later/SKILL.md", skillFile({ name: "later", description: "Old" }))
    expect((await skills.load()).map((skill) => skill.description)).toEqual(["Old"])
    await tree.put(".agents/skills/later/SKILL.md", skillFile({ name: "later", description: "New" }))
    await skills.load()
    expect(skills.skills().map((skill) => skill.description)).toEqual(["New"])
  })

  it("shares a load in progress; one caller's abort ends only its own wait", async () => {
    await tree.put(".agents/skills/shared/SKILL.md", skillFile({ name: "shared", description: "S" }))
    const skills = catalog()
    const controller = new AbortController()
    const aborted = skills.load({ signal: controller.signal })
    const other = skills.load()
    controller.abort(new Error("turn cancelled"))
    await expect(aborted).rejects.toThrow("turn cancelled")
    expect((await other).map((skill) => skill.name)).toEqual(["shared"])
  })
})

describe("createSkillCatalog: invalid skills", () => {
  async function putThreeFaults() {
    const badName = await tree.put(
      ".claude/skills/Bad_Name/SKILL.md",
      skillFile({ name: "Bad_Name", description: "Upper case and underscore" }),
    )
    const noDescription = await tree.put(".claude/skills/no-desc/SKILL.md", skillFile({ name: "no-desc" }))
    const nearDup = await tree.put(
      "a/b/.agents/skills/dup/SKILL.md",
      skillFile({ name: "dup", description: "Near" }),
    )
    const farDup = await tree.put(
      ".claude/skills/dup/SKILL.md",
      skillFile({ name: "dup", description: "Far" }),
    )
    await tree.put(".claude/skills/good/SKILL.md", skillFile({ name: "good", description: "Fine" }))
    return { badName, noDescription, nearDup, farDup }
  }

  it('"throw": one InvalidSkillsError listing each file and what is wrong', async () => {
    const files = await putThreeFaults()
    const error = await catalog({ invalid: "throw" })
      .load()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(InvalidSkillsError.isInstance(error)).toBe(true)
    const { issues } = (error as InvalidSkillsError).data
    expect(issues).toHaveLength(3)
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: files.farDup, field: "name" }),
        expect.objectContaining({ file: files.badName, field: "name" }),
        expect.objectContaining({ file: files.noDescription, field: "description" }),
      ]),
    )
    // A duplicate names both files.
    expect(issues.find((issue) => issue.file === files.farDup)?.message).toContain(files.nearDup)
    const message = (error as Error).message
    for (const file of [files.badName, files.noDescription, files.farDup]) expect(message).toContain(file)
  })

  it('"warn" (the default): one warning per bad skill, the skill skipped, the nearest duplicate kept', async () => {
    const files = await putThreeFaults()
    const warnings: SkillWarning[] = []
    const skills = await catalog({ onWarning: (warning) => warnings.push(warning) }).load()
    expect(skills.map((skill) => [skill.name, skill.location])).toEqual([
      ["dup", files.nearDup],
      ["good", join(tree.tree, ".claude/skills/good/SKILL.md")],
    ])
    expect(warnings.map((warning) => warning.file).sort()).toEqual(
      [files.badName, files.noDescription, files.farDup].sort(),
    )
    for (const warning of warnings) expect(warning.message).toContain(warning.file)
  })

  it("a name that is not its folder's, a description over 1024 characters and broken YAML are faults", async () => {
    const mismatch = await tree.put(
      ".claude/skills/folder/SKILL.md",
      skillFile({ name: "other", description: "D" }),
    )
    const long = await tree.put(
      ".claude/skills/long/SKILL.md",
      skillFile({ name: "long", description: "x".repeat(1025) }),
    )
    const broken = await tree.put(".claude/skills/broken/SKILL.md", "---\nname: [broken\n---\nBody\n")
    const error = await catalog({ invalid: "throw" })
      .load()
      .catch((caught: unknown) => caught)
    expect(InvalidSkillsError.isInstance(error)).toBe(true)
    const issues = (error as InvalidSkillsError).data.issues
    expect(issues.map((issue) => [issue.file, issue.field])).toEqual(
      expect.arrayContaining([
        [mismatch, "name"],
        [long, "description"],
        [broken, "front matter"],
      ]),
    )
    expect(issues.find((issue) => issue.file === mismatch)?.message).toContain("folder")
  })

  it("warns of a fault once, not at every load", async () => {
    await tree.put(".claude/skills/no-desc/SKILL.md", skillFile({ name: "no-desc" }))
    const warnings: SkillWarning[] = []
    const skills = catalog({ onWarning: (warning) => warnings.push(warning) })
    await skills.load()
    await skills.load()
    expect(warnings).toHaveLength(1)
  })

  it("checks the host's skill objects too", async () => {
    const error = await catalog({
      invalid: "throw",
      skills: [{ name: "Not Valid", description: "D", content: "x" }],
    })
      .load()
      .catch((caught: unknown) => caught)
    expect(InvalidSkillsError.isInstance(error)).toBe(true)
    expect((error as InvalidSkillsError).data.issues).toEqual([
      expect.objectContaining({ file: "skills[0]", field: "name" }),
    ])
  })
})
