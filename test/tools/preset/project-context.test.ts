// The coding preset with the project's context: instruction files, skills, markdown agents and
// commands, read from a real temp project (a git work tree) through the preset's own wiring.
import { mkdir, rm } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import type { CallOptions } from "../../../src/testing/script.js"
import { codingPreset, loadCodingPreset, ProjectConfigError } from "../../../src/tools/index.js"
import { tempProject } from "../helpers.js"

const systemOf = (call: CallOptions | undefined) =>
  (call?.prompt ?? []).flatMap((message) => (message.role === "system" ? [message.content] : [])).join("\n\n")
const toolOf = (call: CallOptions | undefined, name: string) =>
  call?.tools?.find((tool) => tool.name === name) as { description?: string } | undefined
const ask = (text: string) => [{ type: "text" as const, text }]

let project: Awaited<ReturnType<typeof tempProject>>
let home: string
beforeEach(async () => {
  project = await tempProject()
  await mkdir(join(project.directory, ".git"))
  // The user's global file is read from the home directory: a home of the test's own.
  home = join(project.root, "home")
  await project.put("home/.config/opencode/AGENTS.md", "GLOBAL: say please.\n")
  vi.stubEnv("HOME", home)
})
afterEach(async () => {
  vi.unstubAllEnvs()
  await project.cleanup()
})

describe("codingPreset's project context", () => {
  it("puts AGENTS.md and the global file in the system prompt, lists and loads a skill", async () => {
    await project.put("project/AGENTS.md", "PROJECT: run npm test before you finish.\n")
    await project.put(
      "project/.claude/skills/release-notes/SKILL.md",
      "---\nname: release-notes\ndescription: Writes release notes from the git log\n---\n\nGroup by feature.\n",
    )
    const preset = codingPreset({ directory: project.directory })
    const { runtime, model } = createTestRuntime({
      ...preset,
      turns: [[say.toolCall("skill", { name: "release-notes" })], [say.text("Done")]],
    })
    const session = await runtime.session.create()
    const turn = await runtime.session.prompt({ sessionID: session.id, parts: ask("notes please") })

    const system = systemOf(model.calls[0])
    expect(system).toContain(`Instructions from: ${join(project.directory, "AGENTS.md")}`)
    expect(system).toContain("PROJECT: run npm test before you finish.")
    expect(system).toContain("GLOBAL: say please.")
    expect(system.indexOf("PROJECT:")).toBeLessThan(system.indexOf("GLOBAL:"))
    expect(toolOf(model.calls[0], "skill")?.description).toContain("<name>release-notes</name>")
    const [call] = turn.toolCalls
    expect(call?.state).toMatchObject({
      status: "completed",
      title: "Loaded skill: release-notes",
      metadata: { name: "release-notes" },
    })
    expect(call?.state.status === "completed" && call.state.output).toContain("Group by feature.")
    await runtime.close()
  })

  it("leaves out what is turned off: instruction files, skills, webfetch", async () => {
    await project.put("project/AGENTS.md", "PROJECT rules\n")
    const preset = codingPreset({
      directory: project.directory,
      instructions: false,
      skills: false,
      webfetch: false,
    })
    expect(preset.instructions).toEqual([])
    expect(preset.tools.map((tool) => tool.id)).not.toContain("skill")
    expect(preset.tools.map((tool) => tool.id)).not.toContain("webfetch")
    const { runtime, model } = createTestRuntime({ ...preset, turns: [[say.text("Hi")]] })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: ask("hi") })
    expect(systemOf(model.calls[0])).not.toContain("PROJECT rules")
    await runtime.close()
  })

  it("keeps its sources when the host adds text of its own", async () => {
    await project.put("project/AGENTS.md", "PROJECT rules\n")
    const preset = codingPreset({ directory: project.directory })
    const { runtime, model } = createTestRuntime({
      ...preset,
      instructions: [...preset.instructions, "HOST: answer briefly."],
      turns: [[say.text("Hi")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: ask("hi") })
    const system = systemOf(model.calls[0])
    expect(system.indexOf("PROJECT rules")).toBeLessThan(system.indexOf("HOST: answer briefly."))
    await runtime.close()
  })
})

describe("loadCodingPreset", () => {
  it("adds the project's markdown agents and commands, and its skills as commands", async () => {
    await project.put(
      "project/.opencode/agent/reviewer.md",
      "---\ndescription: Reviews diffs\nmode: subagent\n---\nYou review.\n",
    )
    await project.put("project/.opencode/agent/plan.md", "---\ntemperature: 0.2\n---\n")
    await project.put(
      "project/.opencode/command/hello.md",
      "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS.\n",
    )
    await project.put(
      "project/.agents/skills/tidy/SKILL.md",
      "---\nname: tidy\ndescription: Tidies imports\n---\n\nSort the imports.\n",
    )
    const loaded = await loadCodingPreset({ directory: project.directory })
    expect(loaded.agents.reviewer).toMatchObject({
      description: "Reviews diffs",
      mode: "subagent",
      prompt: "You review.",
    })
    // The file is laid over the preset's plan agent: its prompt and rules stay.
    expect(loaded.agents.plan).toMatchObject({ temperature: 0.2 })
    expect(loaded.agents.plan?.prompt).toBe(
      codingPreset({ directory: project.directory }).agents.plan?.prompt,
    )
    expect(Object.keys(loaded.commands).sort()).toEqual(["hello", "tidy"])
    expect(loaded.commands.tidy?.template).toContain("Sort the imports.")

    const { runtime, model } = createTestRuntime({ ...loaded, turns: [[say.text("Hello, Ada")]] })
    const session = await runtime.session.create()
    await runtime.session.command({ sessionID: session.id, command: "hello", arguments: "Ada" })
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("Say hello to Ada.")
    await runtime.close()
  })

  it("rejects with ProjectConfigError naming the file of a bad agent", async () => {
    const file = await project.put(
      "project/.opencode/agent/hot.md",
      "---\ntemperature: hot\n---\nYou run hot.\n",
    )
    const error = await loadCodingPreset({ directory: project.directory }).catch((thrown: unknown) => thrown)
    expect(ProjectConfigError.isInstance(error)).toBe(true)
    expect((error as ProjectConfigError).data).toMatchObject({ file, field: "temperature" })
    expect(
      Object.keys((await loadCodingPreset({ directory: project.directory, project: false })).agents),
    ).not.toContain("hot")
    await rm(file)
    expect((await loadCodingPreset({ directory: project.directory })).agents.hot).toBeUndefined()
  })
})
