import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { Agent, createProvider, createRuntime, type RuntimeOptions } from "../../src/index.js"
import {
  type CallOptions,
  createTestRuntime,
  say,
  scriptedModel,
  testModelInfo,
} from "../../src/testing/index.js"
import { codingPreset } from "../../src/tools/index.js"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-neutral-"))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))

const systemOf = (call: CallOptions) =>
  call.prompt
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n")
const hi = { type: "text" as const, text: "Hi" }

async function firstSystem(options: Omit<RuntimeOptions, "provider" | "model" | "models" | "smallModel">) {
  const { runtime, model } = createTestRuntime({ ...options, turns: [[say.text("Hello")]] })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [hi] })
  await runtime.close()
  return systemOf(model.calls[0]!)
}

describe("the default runtime assumes no codebase", () => {
  it("sends the neutral prompt and today's date, never the directory or a coding prompt", async () => {
    const system = await firstSystem({ directory })
    expect(system.startsWith(Agent.Prompt.DEFAULT)).toBe(true)
    expect(system).toContain(`Today's date: ${Agent.formatDate(new Date())}`)
    expect(system).not.toContain(directory)
    expect(system).not.toContain("Platform:")
    expect(system).not.toMatch(/coding agent|codebase/i)
  })

  it('`environment: "workspace"` adds the directory, git and platform; `"none"` drops the block', async () => {
    const workspace = await firstSystem({ directory, environment: "workspace", git: false })
    expect(workspace).toContain(`Working directory: ${directory}`)
    expect(workspace).toContain("Is the directory a git repository: no")
    expect(workspace).toContain(`Platform: ${process.platform}`)
    const none = await firstSystem({ directory, environment: "none" })
    expect(none).toBe(Agent.Prompt.DEFAULT)
  })

  it("the coding preset brings the coding prompt, the directory, the coding tools and agents", async () => {
    const preset = codingPreset({ directory })
    const { runtime, model } = createTestRuntime({ ...preset, turns: [[say.text("Hello")]] })
    expect(Object.keys(runtime.agents)).toEqual(
      expect.arrayContaining(["build", "plan", "explore", "general"]),
    )
    const session = await runtime.session.create({})
    expect(session.directory).toBe(directory)
    await runtime.session.prompt({ sessionID: session.id, parts: [hi] })
    const call = model.calls[0]!
    expect(systemOf(call).startsWith(Agent.Prompt.BUILD)).toBe(true)
    expect(systemOf(call)).toContain(`Working directory: ${directory}`)
    const offered = call.tools?.map((tool) => tool.name) ?? []
    expect(offered).toEqual(expect.arrayContaining(["read", "write", "edit", "glob", "grep", "list", "bash"]))
    await runtime.close()
  })
})

describe("titles", () => {
  const info = testModelInfo
  const ref = { providerID: info.providerID, modelID: info.id }
  const smallRef = { providerID: info.providerID, modelID: "small" }

  async function run(options: { small: boolean; titles?: boolean }) {
    const model = scriptedModel([[say.text("Hello")]], { fallback: [say.text("A title")] })
    const small = scriptedModel([], { modelId: "small", fallback: [say.text("Small title")] })
    const provider = createProvider({
      models: [
        { ...ref, language: model, info },
        { ...smallRef, language: small, info: { ...info, id: "small" } },
      ],
      default: ref,
      ...(options.small ? { small: smallRef } : {}),
    })
    const runtime = createRuntime({
      provider,
      ...(options.titles === undefined ? {} : { titles: options.titles }),
    })
    const session = await runtime.session.create({})
    await runtime.session.prompt({ sessionID: session.id, parts: [hi] })
    await runtime.close() // waits for titles being written
    return { model, small }
  }

  it("are written on the small model when the provider has one", async () => {
    const { model, small } = await run({ small: true })
    expect(model.calls).toHaveLength(1)
    expect(small.calls).toHaveLength(1)
  })

  it("cost no extra call without a small model", async () => {
    const { model, small } = await run({ small: false })
    expect(model.calls).toHaveLength(1)
    expect(small.calls).toHaveLength(0)
  })

  it("use the default model when asked for (`titles: true`), and none with `titles: false`", async () => {
    expect((await run({ small: false, titles: true })).model.calls).toHaveLength(2)
    const off = await run({ small: true, titles: false })
    expect(off.small.calls).toHaveLength(0)
  })
})
