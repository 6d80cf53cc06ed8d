import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Permission, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const rule = (action: Permission.Action, pattern = "*"): Permission.Rule => ({
  permission: "guarded",
  pattern,
  action,
})

/**
 * A runtime with a "guarded" tool the scripted model calls once, then answers "done". The
 * runtime's rules ask for it and nothing answers asks, so the call runs only where session rules
 * allow it.
 */
function setup() {
  const ran: string[] = []
  const guarded = Tool.define("guarded", {
    description: "Does something a parent session may forbid",
    parameters: z.object({}),
    async execute(_args, context) {
      await context.ask({ permission: "guarded", patterns: ["x"] })
      ran.push(context.sessionID)
      return { title: "guarded", output: "did it", metadata: {} }
    },
  })
  const { runtime, model } = createTestRuntime({
    tools: [guarded],
    turns: [[say.toolCall("guarded", {})], [say.text("done")]],
    permission: [rule("ask")],
    nonInteractive: "deny",
  })
  const run = async (sessionID: string) => {
    await runtime.session.prompt({ sessionID, parts: [{ type: "text", text: "go" }] })
    const messages = await runtime.session.messages(sessionID)
    const tool = messages
      .flatMap((message) => message.parts)
      .find((part): part is MessageV2.ToolPart => part.type === "tool")
    return tool?.state
  }
  const offered = (call: number) => (model.calls[call]?.tools ?? []).some((tool) => tool.name === "guarded")
  return { runtime, model, ran, run, offered }
}

describe("session rules of a child session", () => {
  it("keep a parent's deny over the child's own allow", async () => {
    const { runtime, ran, run, offered } = setup()
    const parent = await runtime.session.create({ permission: [rule("deny")] })
    const child = await runtime.session.create({ parentID: parent.id, permission: [rule("allow")] })
    const state = await run(child.id)
    // Denied for every pattern, the tool is not even offered to the model (Permission.disabled).
    expect(offered(0)).toBe(false)
    expect(state?.status === "error" && state.error).toContain("unavailable tool 'guarded'")
    expect(ran).toEqual([])
  })

  it("deny the call itself when the parent denies what the tool asks for", async () => {
    const { runtime, ran, run, offered } = setup()
    const parent = await runtime.session.create({ permission: [rule("deny", "x")] })
    const child = await runtime.session.create({ parentID: parent.id })
    await runtime.session.update(child.id, { permission: [rule("allow")] })
    const state = await run(child.id)
    expect(offered(0)).toBe(true)
    expect(state).toMatchObject({ status: "error" })
    expect(state?.status === "error" && state.error).toContain('guarded "x" -> deny')
    expect(ran).toEqual([])
  })

  it("keep a grandparent's deny for a grandchild", async () => {
    const { runtime, ran, run } = setup()
    const root = await runtime.session.create({ permission: [rule("deny", "x")] })
    const middle = await runtime.session.create({ parentID: root.id, permission: [rule("allow")] })
    const leaf = await runtime.session.create({ parentID: middle.id, permission: [rule("allow")] })
    const state = await run(leaf.id)
    expect(state?.status === "error" && state.error).toContain('guarded "x" -> deny')
    expect(ran).toEqual([])
  })

  it("let a child narrow what its parent allows", async () => {
    const { runtime, ran, run } = setup()
    const parent = await runtime.session.create({ permission: [rule("allow")] })
    const child = await runtime.session.create({ parentID: parent.id, permission: [rule("deny", "x")] })
    const state = await run(child.id)
    expect(state?.status === "error" && state.error).toContain('guarded "x" -> deny')
    expect(ran).toEqual([])
  })

  it("inherit a parent's allow", async () => {
    const { runtime, ran, run } = setup()
    const parent = await runtime.session.create({ permission: [rule("allow")] })
    const child = await runtime.session.create({ parentID: parent.id })
    expect(await run(child.id)).toMatchObject({ status: "completed", output: "did it" })
    expect(ran).toEqual([child.id])
  })
})
