import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { describe, expect, it, onTestFinished } from "vitest"
import type { TestRuntimeOptions } from "../../../src/testing/index.js"
import { agentSkills, skillCommands } from "../../../src/tools/skills/index.js"
import { answer, startServer } from "./helpers.js"

/** A project with `.git` and one skill, and the runtime's skills over it. */
async function projectWithSkill() {
  const directory = await realpath(await mkdtemp(join(tmpdir(), "agentloop-server-skills-")))
  onTestFinished(() => rm(directory, { recursive: true, force: true }))
  await mkdir(join(directory, ".git"))
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(directory, path)), { recursive: true })
    await writeFile(join(directory, path), text)
    return join(directory, path)
  }
  const location = await put(
    ".claude/skills/release-notes/SKILL.md",
    "---\nname: release-notes\ndescription: Writes release notes\n---\n\nList the changes.\n",
  )
  const skills = agentSkills({ directory })
  await skills.catalog.load()
  /** The server over a runtime in this project, and OpenCode's client pointed at it. */
  const serve = async (options: TestRuntimeOptions) => {
    const { url } = await startServer({ ...options, directory })
    return createOpencodeClient({ baseUrl: url, directory })
  }
  return { directory, put, location, skills, serve }
}

describe("the skill routes answer the runtime's skills", () => {
  it("app.skills (GET /skill) and v2.skill.list (GET /api/skill) list the skill tool's skills, read anew", async () => {
    const { directory, put, location, skills, serve } = await projectWithSkill()
    const v2 = await serve({ tools: [skills.tool] })
    const listed = await answer("app.skills", v2.app.skills())
    expect(listed).toEqual([
      { name: "release-notes", description: "Writes release notes", location, content: "List the changes." },
    ])
    const newer = await answer("v2.skill.list", v2.v2.skill.list())
    expect(newer.location).toMatchObject({ directory })
    expect(newer.data).toEqual([
      {
        name: "release-notes",
        description: "Writes release notes",
        location,
        content: "List the changes.",
        slash: false,
      },
    ])
    await put(".agents/skills/triage/SKILL.md", "---\nname: triage\ndescription: Sorts issues\n---\nSort.\n")
    const again = await answer("app.skills", v2.app.skills())
    expect(again.map((skill) => skill.name)).toEqual(["release-notes", "triage"])
  })

  it("command.list marks the commands that are skills source skill", async () => {
    const { skills, serve } = await projectWithSkill()
    const commands = {
      ...skillCommands(skills.catalog),
      review: { template: "Review $ARGUMENTS", description: "Review a file" },
    }
    const v2 = await serve({ tools: [skills.tool], commands })
    const listed = await answer("command.list", v2.command.list())
    expect(listed.map((command) => [command.name, command.source])).toEqual(
      expect.arrayContaining([
        ["release-notes", "skill"],
        ["review", "command"],
      ]),
    )
    const newer = await answer("v2.skill.list", v2.v2.skill.list())
    expect(newer.data.map((skill) => skill.slash)).toEqual([true])
  })

  it("a runtime without the skill tool lists none", async () => {
    const { v2 } = await startServer()
    expect(await answer("app.skills", v2.app.skills())).toEqual([])
    expect((await answer("v2.skill.list", v2.v2.skill.list())).data).toEqual([])
  })
})
