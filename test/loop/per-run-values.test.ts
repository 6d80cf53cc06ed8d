import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { type Permission, Tool } from "../../src/index.js"
import { createTestRuntime, type ScriptedModel, say } from "../../src/testing/index.js"

/**
 * What a step computes from the run's inputs (rules, offered tools, system prompt) follows every
 * change of those inputs, even when the step could reuse what the step before it computed.
 */

const deny = (permission: string): Permission.Rule => ({ permission, pattern: "*", action: "deny" })

const noop = (id: string) =>
  Tool.define(id, {
    description: `The ${id} tool`,
    parameters: z.object({}),
    execute: async () => ({ title: id, output: "ok", metadata: {} }),
  })

/** A tool that runs `effect` and returns; the next step sees what it changed. */
const acting = (id: string, effect: (sessionID: string) => Promise<unknown> | unknown) =>
  Tool.define(id, {
    description: `The ${id} tool`,
    parameters: z.object({}),
    async execute(_args, context) {
      await effect(context.sessionID)
      return { title: id, output: "ok", metadata: {} }
    },
  })

const offered = (model: ScriptedModel) =>
  model.calls.map((call) => (call.tools ?? []).map((tool) => tool.name).sort())

const systemOf = (model: ScriptedModel, call: number) =>
  (model.calls[call]?.prompt ?? [])
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n")

const go = { parts: [{ type: "text" as const, text: "go" }] }

afterEach(() => {
  vi.useRealTimers()
})

describe("a step's rules and tools", () => {
  it("follow a session rule that session.update adds and removes between steps of one run", async () => {
    let sessionID = ""
    let rules: Permission.Rule[] = []
    const runtimeRef: { update?: (rules: Permission.Rule[]) => Promise<unknown> } = {}
    const flip = acting("flip", async () => {
      rules = rules.length === 0 ? [deny("target")] : []
      await runtimeRef.update?.(rules)
    })
    const { runtime, model } = createTestRuntime({
      tools: [flip, noop("target")],
      turns: [[say.toolCall("flip", {})], [say.toolCall("flip", {})], [say.text("done")]],
    })
    runtimeRef.update = (permission) => runtime.session.update(sessionID, { permission })
    sessionID = (await runtime.session.create()).id
    await runtime.session.prompt({ sessionID, ...go })
    expect(offered(model)).toEqual([["flip", "target"], ["flip"], ["flip", "target"]])
  })

  it("follow a rule an ancestor session gets between steps of a child's run", async () => {
    let parentID = ""
    const holder: { update?: () => Promise<unknown> } = {}
    const forbid = acting("forbid", () => holder.update?.())
    const { runtime, model } = createTestRuntime({
      tools: [forbid, noop("target")],
      turns: [[say.toolCall("forbid", {})], [say.text("done")]],
    })
    parentID = (await runtime.session.create()).id
    holder.update = () => runtime.session.update(parentID, { permission: [deny("target")] })
    const child = await runtime.session.create({ parentID })
    await runtime.session.prompt({ sessionID: child.id, ...go })
    expect(offered(model)).toEqual([["forbid", "target"], ["forbid"]])
  })

  it("follow each prompt's tool switches, step after step", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [noop("target"), noop("other")],
      turns: [
        [say.toolCall("other", {})],
        [say.text("one")],
        [say.toolCall("other", {})],
        [say.text("two")],
        [say.text("three")],
      ],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, ...go })
    await runtime.session.prompt({ sessionID: session.id, ...go, tools: { target: false } })
    await runtime.session.prompt({ sessionID: session.id, ...go })
    expect(offered(model)).toEqual([
      ["other", "target"],
      ["other", "target"],
      ["other"],
      ["other"],
      ["other", "target"],
    ])
  })

  it("are a step's own: a structured answer's tool added at one step is not offered at the next run", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [noop("target")],
      turns: [[say.toolCall("StructuredOutput", { answer: "yes" })], [say.text("plain")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      ...go,
      format: { type: "json_schema", schema: { type: "object", properties: { answer: { type: "string" } } } },
    })
    await runtime.session.prompt({ sessionID: session.id, ...go })
    expect(offered(model)).toEqual([["StructuredOutput", "target"], ["target"]])
  })
})

describe("a step's system prompt", () => {
  it("shows the new day when the date changes between steps of one run", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(new Date(2031, 0, 5, 23, 59, 0))
    const midnight = acting("midnight", () => vi.setSystemTime(new Date(2031, 0, 6, 0, 1, 0)))
    const { runtime, model } = createTestRuntime({
      tools: [midnight],
      turns: [[say.toolCall("midnight", {})], [say.toolCall("midnight", {})], [say.text("done")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, ...go })
    expect(systemOf(model, 0)).toContain("Today's date: 2031-01-05")
    expect(systemOf(model, 1)).toContain("Today's date: 2031-01-06")
    expect(systemOf(model, 2)).toBe(systemOf(model, 1))
  })

  it("runs the chat.system and chat.params hooks at every step, with what each returns", async () => {
    let calls = 0
    const { runtime, model } = createTestRuntime({
      tools: [noop("target")],
      turns: [[say.toolCall("target", {})], [say.toolCall("target", {})], [say.text("done")]],
      hooks: {
        "chat.system": (_input, output) => {
          calls++
          output.system.push(`Hook call ${calls}.`)
        },
        "chat.params": (_input, output) => {
          output.temperature = calls / 10
        },
      },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, ...go })
    expect(calls).toBe(3)
    expect([0, 1, 2].map((call) => systemOf(model, call).endsWith(`Hook call ${call + 1}.`))).toEqual([
      true,
      true,
      true,
    ])
    expect(model.calls.map((call) => call.temperature)).toEqual([0.1, 0.2, 0.3])
  })

  it("follows each prompt's own system text and agent", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.text("one")], [say.text("two")], [say.text("three")], [say.text("four")]],
      agents: { other: { mode: "primary", prompt: "You are the other agent." } },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, ...go, system: "First system." })
    await runtime.session.prompt({ sessionID: session.id, ...go, system: "Second system." })
    await runtime.session.prompt({ sessionID: session.id, ...go })
    await runtime.session.prompt({ sessionID: session.id, ...go, agent: "other" })
    expect(systemOf(model, 0)).toContain("First system.")
    expect(systemOf(model, 1)).toContain("Second system.")
    expect(systemOf(model, 1)).not.toContain("First system.")
    expect(systemOf(model, 2)).not.toContain("Second system.")
    expect(systemOf(model, 3)).toContain("You are the other agent.")
    expect(systemOf(model, 2)).not.toContain("You are the other agent.")
  })
})
