import { tool } from "ai"
import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import { createTestRuntime, type ScriptStep, say, scriptFor, turnText } from "../../src/testing/index.js"

// Type errors are the assertions of this file: `npx tsc --noEmit -p .` checks each
// `@ts-expect-error` below still finds one.

const lookup = Tool.define("lookup", {
  description: "Looks an order up",
  parameters: z.object({ orderID: z.string() }),
  execute: async ({ orderID }) => ({ title: orderID, output: `order ${orderID}: paid`, metadata: {} }),
})
const refund = Tool.define("refund", {
  description: "Refunds an order",
  parameters: z.object({ orderID: z.string(), amount: z.number().optional() }),
  execute: async ({ orderID }) => ({ title: orderID, output: "refunded", metadata: {} }),
})
const weatherSet = {
  weather: tool({
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `${city}: 21°C, sunny`,
  }),
}

describe("a script typed from the runtime's tools", () => {
  it("runs the example of docs/testing.md", async () => {
    const tools = {
      refund: tool({
        description: "Refunds an order",
        inputSchema: z.object({ orderID: z.string() }),
        execute: async ({ orderID }) => `Order ${orderID} refunded.`,
      }),
    }
    const { runtime, verify } = createTestRuntime({
      tools,
      turns: (say) => [[say.toolCall("refund", { orderID: "1" })], [say.text("Refunded order 1.")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Refund order 1" }],
    })
    expect(turnText(result)).toBe("Refunded order 1.")
    verify()
    await runtime.close()
  })

  it("gets a typed say from createTestRuntime's turns, and plays it", async () => {
    const { runtime, model, verify } = createTestRuntime({
      tools: [lookup, refund],
      turns: (say) => [[say.toolCall("lookup", { orderID: "1" })], [say.text("Order 1 is paid.")]],
    })
    const session = await runtime.session.create()
    const result = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "order 1?" }],
    })
    expect(turnText(result)).toBe("Order 1 is paid.")
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("order 1: paid")
    verify()
    await runtime.close()
  })

  it("checks a Tool.define tool's name and input against its zod parameters", () => {
    const typed = [lookup, refund]
    createTestRuntime({
      tools: typed,
      turns: (say) => [
        [
          say.toolCall("refund", { orderID: "1", amount: 5 }),
          // @ts-expect-error orderID is a string
          say.toolCall("lookup", { orderID: 1 }),
          // @ts-expect-error the runtime has no tool "refnud"
          say.toolCall("refnud", { orderID: "1" }),
        ],
      ],
    })
    const script = scriptFor(typed)
    expectTypeOf(script.toolCall("refund", { orderID: "1" })).toEqualTypeOf<ScriptStep>()
    // @ts-expect-error amount is a number
    script.toolCall("refund", { orderID: "1", amount: "5" })
  })

  it("checks an AI SDK tool set's names and inputs", () => {
    const script = scriptFor(weatherSet)
    script.toolCall("weather", { city: "Lisbon" })
    // @ts-expect-error the set has no tool "wether"
    script.toolCall("wether", { city: "Lisbon" })
    // @ts-expect-error city is a string
    script.toolCall("weather", { city: 1 })
    createTestRuntime({
      tools: weatherSet,
      // @ts-expect-error the set has no tool "forecast"
      turns: (say) => [[say.toolCall("forecast", { city: "Lisbon" })]],
    })
  })

  it("types say.toolCall from a type argument, and leaves plain say untyped", () => {
    say.toolCall<typeof weatherSet>("weather", { city: "Lisbon" })
    // @ts-expect-error city is a string
    say.toolCall<typeof weatherSet>("weather", { city: true })
    expectTypeOf(say.toolCall("anything", 42, { id: "call-1" })).toEqualTypeOf<ScriptStep>()
  })
})
