import { tool } from "ai"
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest"
import { z } from "zod"
import {
  createProvider,
  createRuntime,
  type MessageV2,
  type Permission,
  type Provider,
  type RuntimeOptions,
  Tool,
  type TurnResult,
} from "../../src/index.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"

// What a new user writes first. Half of what this file checks is that it compiles (tsc runs on
// test/): no annotation, cast or non-null assertion a newcomer would not think of.

const lookup = Tool.define("lookup", {
  description: "Looks an order up",
  parameters: z.object({ orderID: z.string() }),
  execute: async ({ orderID }) => `order ${orderID}: shipped`,
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe("model info without cache prices", () => {
  it("is accepted by createProvider, createRuntime and createTestRuntime, as cache prices of 0", async () => {
    const cost = { input: 1, output: 2 }
    const language = scriptedModel([], { modelId: "house-model" })
    const info = {
      providerID: "scripted",
      id: "house-model",
      name: "House model",
      limit: { context: 100_000, output: 4_000 },
      cost,
      capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
    }
    const ref = { providerID: "scripted", modelID: "house-model" }
    const annotated: Provider.ModelInfoInput = info
    const provider = createProvider({ models: [{ ...ref, language, info: annotated }], default: ref })
    expect(provider.getModel(ref).info.cost).toEqual({ ...cost, cache: { read: 0, write: 0 } })

    const runtime = createRuntime({ model: { language, info: { cost } } })
    expect(runtime.provider?.defaultModel().info.cost).toEqual({ ...cost, cache: { read: 0, write: 0 } })
    const test = createTestRuntime({ modelInfo: { cost } })
    expect(test.runtime.provider.defaultModel().info.cost).toEqual({ ...cost, cache: { read: 0, write: 0 } })
    await Promise.all([runtime.close(), test.runtime.close()])
  })
})

describe("instructions", () => {
  it("take a plain string, sent as the system prompt's instructions", async () => {
    const { runtime, model } = createTestRuntime({
      instructions: "Answer in French.",
      turns: [[say.text("Oui")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] })
    const system = model.calls[0]!.prompt.filter((message) => message.role === "system")
    expect(system.map((message) => message.content).join("\n")).toContain("Answer in French.")
    await runtime.close()
  })
})

describe("one options object for createRuntime and createTestRuntime", () => {
  it("may be declared `as const` (readonly arrays everywhere)", async () => {
    const options = {
      instructions: ["Be brief.", "Be kind."],
      tools: [lookup],
      permission: [{ permission: "lookup", pattern: "*", action: "allow" }],
      agents: { build: { permission: [{ permission: "bash", pattern: "*", action: "deny" }] } },
      compaction: { auto: true, protectedTools: ["question"] },
      environment: "date",
    } as const
    const language = scriptedModel([[say.text("Done")]], { modelId: "house-model" })
    const runtime = createRuntime({ ...options, models: [language] as const })
    const test = createTestRuntime({ ...options, turns: [[say.text("Done")]] })
    expectTypeOf(options).toExtend<RuntimeOptions>()
    for (const { runtime: each } of [{ runtime }, test]) {
      const session = await each.session.create()
      const turn = await each.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] })
      expect(turn.text).toBe("Done")
      await each.close()
    }
  })
})

describe("TurnResult", () => {
  it("always has the user message a prompt answers", async () => {
    expectTypeOf<TurnResult["user"]>().toEqualTypeOf<MessageV2.WithParts>()
    const { runtime } = createTestRuntime({ turns: [[say.text("Hello")]] })
    const session = await runtime.session.create()
    const turn = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Hi" }],
    })
    const userID: string = turn.user.info.id
    expect(turn.user.info.role).toBe("user")
    expect(userID < turn.info.id).toBe(true)
    await runtime.close()
  })
})

describe("the unknown-model warning", () => {
  it("goes to the host's logger, once per model, and not to the console", async () => {
    const console = vi.spyOn(globalThis.console, "warn").mockImplementation(() => undefined)
    const warnings: string[] = []
    const logger = { warn: (message: string) => warnings.push(message) }
    const language = scriptedModel([], { modelId: "nobody-knows-me" })
    const runtime = createRuntime({ model: language, logger })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain("nobody-knows-me")
    const ref = { providerID: "scripted", modelID: "nobody-knows-me" }
    createProvider({ models: [{ ...ref, language }], default: ref, logger })
    expect(warnings).toHaveLength(2)
    expect(console).not.toHaveBeenCalled()
    await runtime.close()
  })

  it("goes to console.warn by default", async () => {
    const console = vi.spyOn(globalThis.console, "warn").mockImplementation(() => undefined)
    const runtime = createRuntime({ model: scriptedModel([], { modelId: "nobody-knows-me" }) })
    expect(console).toHaveBeenCalledTimes(1)
    await runtime.close()
  })
})

describe("an AI SDK tool's permission request", () => {
  it("carries the call's input in metadata.input, what README's example shows a person", async () => {
    const asked: Permission.Request[] = []
    const { runtime } = createTestRuntime({
      tools: {
        refund: tool({
          description: "Refund an order",
          inputSchema: z.object({ orderID: z.string() }),
          execute: async ({ orderID }) => ({ orderID, refunded: true }),
        }),
      },
      permission: [{ permission: "refund", pattern: "*", action: "ask" }],
      onPermission: (request) => {
        asked.push(request)
        return "once"
      },
      turns: [[say.toolCall("refund", { orderID: "A1" })], [say.text("Refunded")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Refund A1" }] })
    expect(asked.map(({ permission, patterns, metadata }) => ({ permission, patterns, metadata }))).toEqual([
      { permission: "refund", patterns: ["*"], metadata: { input: { orderID: "A1" } } },
    ])
    await runtime.close()
  })
})
