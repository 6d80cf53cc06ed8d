import { describe, expect, it } from "vitest"
import { createRuntime } from "../../src/index.js"
import { Session } from "../../src/session/index.js"

const tokens = { input: 1_000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } }

describe("Session.getUsage without prices", () => {
  it("costs 0 and says the cost is unknown, counting the tokens all the same", () => {
    const model = {
      providerID: "acme",
      id: "acme-1",
      name: "acme-1",
      capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
    }
    const usage = Session.getUsage({ model, usage: { inputTokens: 1_000, outputTokens: 100 } as never })
    expect(usage).toEqual({ cost: 0, tokens, costUnknown: true })
  })
})

describe("runtime.session.usage with an unpriced step", () => {
  it("marks the session that had it, and the totals of every session above it", async () => {
    const runtime = createRuntime()
    const parent = await runtime.session.create()
    const child = await runtime.session.create({ parentID: parent.id })
    await runtime.session.recordUsage(parent.id, { cost: 0.5, tokens })
    await runtime.session.recordUsage(child.id, { cost: 0, costUnknown: true, tokens })
    await runtime.session.recordUsage(child.id, { cost: 0.25, tokens })

    const usage = await runtime.session.usage(parent.id)
    expect(usage.costUnknown).toBeUndefined()
    expect(usage.total).toMatchObject({ cost: 0.75, costUnknown: true })
    expect(await runtime.session.usage(child.id)).toMatchObject({ cost: 0.25, costUnknown: true })
    await runtime.close()
  })
})
