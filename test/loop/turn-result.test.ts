import { describe, expect, it } from "vitest"
import { z } from "zod"
import { MessageV2, Permission, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const refund = Tool.define("refund", {
  description: "Refunds an order",
  parameters: z.object({ order: z.string() }),
  async execute({ order }, context) {
    await context.ask({ permission: "refund", patterns: [order] })
    return { title: order, output: `refunded ${order}`, metadata: {} }
  },
})
const lookup = Tool.define("lookup", {
  description: "Looks an order up",
  parameters: z.object({ order: z.string() }),
  async execute({ order }) {
    return { title: order, output: `order ${order}: shipped`, metadata: {} }
  },
})
const askRefunds = [{ permission: "refund", pattern: "*", action: "ask" as const }]
const text = (value: string) => [{ type: "text" as const, text: value }]

describe("the turn result of prompt()", () => {
  it("sums every step's tokens and cost, and names the user message, the steps and the tool calls", async () => {
    const { runtime } = createTestRuntime({
      tools: [lookup],
      turns: [
        [say.toolCall("lookup", { order: "A1" }), say.usage({ input: 200, output: 10 })],
        [say.text("It shipped."), say.usage({ input: 20, output: 5 })],
      ],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Where is A1?") })

    expect(result.user?.info).toMatchObject({ role: "user", sessionID: session.id })
    expect((await runtime.session.messages(session.id))[0]!.info.id).toBe(result.user!.info.id)
    expect(result.steps).toHaveLength(2)
    expect(result.steps.at(-1)!.info.id).toBe(result.info.id)
    expect(result.text).toBe("It shipped.")
    expect(result.toolCalls).toMatchObject([
      { tool: "lookup", state: { status: "completed", input: { order: "A1" }, output: "order A1: shipped" } },
    ])
    expect(result.finish).toEqual({ reason: "stop" })
    // The final step alone is 20/5 tokens; the turn is 220/15 at $3 and $15 per million.
    expect(MessageV2.throwIfFailed(result).info.tokens).toMatchObject({ input: 20, output: 5 })
    expect(result.usage.tokens).toMatchObject({ input: 220, output: 15 })
    expect(result.usage.cost).toBeCloseTo((220 * 3 + 15 * 15) / 1_000_000, 12)
    expect(result.subagents).toMatchObject({ cost: 0, tokens: { input: 0, output: 0 } })
    await runtime.close()
  })

  it("counts what sub-agents spent apart from the turn's own steps", async () => {
    const { runtime } = createTestRuntime({
      agents: {
        helper: {
          mode: "subagent",
          description: "Helps",
          permission: Permission.fromConfig({ "*": "allow" }),
        },
      },
      turns: [
        [
          say.toolCall("task", { description: "Find eta", prompt: "find eta", subagent_type: "helper" }),
          say.usage({ input: 100, output: 10 }),
        ],
        [say.text("eta 5 days"), say.usage({ input: 40, output: 4 })],
        [say.text("It arrives in 5 days."), say.usage({ input: 150, output: 8 })],
      ],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("When?") })
    expect(result.text).toBe("It arrives in 5 days.")
    expect(result.usage.tokens).toMatchObject({ input: 250, output: 18 })
    expect(result.subagents.tokens).toMatchObject({ input: 40, output: 4 })
    expect(result.subagents.cost).toBeCloseTo((40 * 3 + 4 * 15) / 1_000_000, 12)
    await runtime.close()
  })

  it("ends with reason 'rejected' naming the call when the host's handler says no", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [refund],
      permission: askRefunds,
      onPermission: async () => "reject" as const,
      turns: [[say.toolCall("refund", { order: "A1" })]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Refund A1") })
    expect(result.finish).toEqual({
      reason: "rejected",
      callID: result.toolCalls[0]!.callID,
      tool: "refund",
      by: "host",
    })
    expect(result.toolCalls[0]!.state).toMatchObject({ status: "error", refusedBy: "host" })
    expect(model.calls).toHaveLength(1)
    await runtime.close()
  })

  it("says the user refused when the answer came through permission.reply", async () => {
    const { runtime } = createTestRuntime({
      tools: [refund],
      permission: askRefunds,
      turns: [[say.toolCall("refund", { order: "A1" })]],
    })
    runtime.events.on("permission.asked", (event) => {
      void runtime.permission.reply({ requestID: event.properties.id, reply: "reject" })
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Refund A1") })
    expect(result.finish).toMatchObject({ reason: "rejected", tool: "refund", by: "user" })
    await runtime.close()
  })

  it("with rejection: 'continue', tells the model who refused, and the model answers", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [refund],
      permission: askRefunds,
      rejection: "continue",
      onPermission: () => "reject" as const,
      turns: [[say.toolCall("refund", { order: "A1" })], [say.text("Sorry, a refund was not approved.")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Refund A1") })
    expect(result.text).toBe("Sorry, a refund was not approved.")
    expect(result.finish).toEqual({ reason: "stop" })
    expect(result.toolCalls[0]!.state).toMatchObject({ status: "error", refusedBy: "host" })
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain("The application rejected permission")
    await runtime.close()
  })

  it("lets an agent's own rejection setting win over the runtime's", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [refund],
      permission: askRefunds,
      rejection: "continue",
      agents: { build: { rejection: "stop" } },
      onPermission: () => "reject" as const,
      turns: [[say.toolCall("refund", { order: "A1" })], [say.text("never sent")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Refund A1") })
    expect(result.finish).toMatchObject({ reason: "rejected", by: "host" })
    expect(model.calls).toHaveLength(1)
    await runtime.close()
  })

  it("marks a denial by a rule, which goes back to the model", async () => {
    const { runtime } = createTestRuntime({
      tools: [refund],
      permission: Permission.fromConfig({ refund: { "*": "allow", A1: "deny" } }),
      turns: [[say.toolCall("refund", { order: "A1" })], [say.text("I cannot refund that.")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Refund A1") })
    expect(result.toolCalls[0]!.state).toMatchObject({ status: "error", refusedBy: "rule" })
    expect(result.finish).toEqual({ reason: "stop" })
    await runtime.close()
  })

  it("ends with 'max-steps' when the agent's steps ran out", async () => {
    const { runtime } = createTestRuntime({
      tools: [lookup],
      agents: { build: { steps: 2 } },
      turns: [[say.toolCall("lookup", { order: "A1" })], [say.text("Out of steps: A1 shipped.")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({ sessionID: session.id, parts: text("Where is A1?") })
    expect(result.finish).toEqual({ reason: "max-steps" })
    await runtime.close()
  })

  it("ends with 'aborted' and the error when cancelled, and 'no-reply' for a stored prompt", async () => {
    const { runtime } = createTestRuntime({ turns: [[say.delay(60_000), say.text("late")]] })
    const session = await runtime.session.create()
    const stored = await runtime.session.prompt({ sessionID: session.id, parts: text("note"), noReply: true })
    expect(stored.finish).toEqual({ reason: "no-reply" })
    expect(stored.steps).toEqual([])
    const busy = new Promise<void>((resolve) =>
      runtime.events.on("session.status", (event) => {
        if (event.properties.status.type === "busy") resolve()
      }),
    )
    const running = runtime.session.prompt({ sessionID: session.id, parts: text("go") })
    await busy
    await runtime.session.cancel(session.id)
    const result = await running
    expect(result.finish).toMatchObject({ reason: "aborted", error: { name: "AbortedError" } })
    await runtime.close()
  })

  it("returns the structured answer of a json_schema prompt", async () => {
    const { runtime } = createTestRuntime({
      turns: [[say.toolCall("StructuredOutput", { city: "Lisbon" })]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({
      sessionID: session.id,
      parts: text("Which city?"),
      format: { type: "json_schema", schema: { type: "object", properties: { city: { type: "string" } } } },
    })
    expect(result.finish).toEqual({ reason: "structured-output" })
    expect(result.structured).toEqual({ city: "Lisbon" })
    await runtime.close()
  })
})
