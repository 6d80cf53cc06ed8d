import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import { createTestRuntime, say, type TestRuntimeOptions } from "../../src/testing/index.js"
import { codingPreset } from "../../src/tools/index.js"

const refund = Tool.define("refund", {
  description: "Refunds an order",
  parameters: z.object({ orderID: z.string() }),
  async execute({ orderID }) {
    return { title: orderID, output: "refunded", metadata: {} }
  },
})

/** The tools the model is offered on the first call of a one-prompt turn. */
async function offered(options: TestRuntimeOptions): Promise<string[]> {
  const { runtime, model } = createTestRuntime({ ...options, turns: [[say.text("ok")]] })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
  await runtime.close()
  return (model.calls[0]?.tools ?? []).map((tool) => tool.name).sort()
}

describe("built-in tools are offered only where they serve", () => {
  it("a runtime with one tool and no sub-agents offers the model that tool alone", async () => {
    expect(await offered({ tools: [refund] })).toEqual(["refund"])
  })

  it("registers none of them by default", () => {
    const { runtime } = createTestRuntime({ tools: [refund] })
    expect(runtime.tools.all().map((tool) => tool.id)).toEqual(["refund"])
  })

  it("offers question when onQuestion answers, or when the host turns it on", async () => {
    expect(await offered({ tools: [refund], onQuestion: () => [] })).toEqual(["question", "refund"])
    expect(await offered({ tools: [refund], question: true })).toEqual(["question", "refund"])
    expect(await offered({ tools: [refund], onQuestion: () => [], question: false })).toEqual(["refund"])
  })

  it("offers the to-do tools on request", async () => {
    expect(await offered({ tools: [refund], todos: true })).toEqual(["refund", "todoread", "todowrite"])
  })

  it("offers task when the host brings a sub-agent, or turns it on for the built-in general", async () => {
    const researcher = { mode: "subagent" as const, description: "Looks things up" }
    expect(await offered({ tools: [refund], agents: { researcher } })).toEqual(["refund", "task"])
    expect(await offered({ tools: [refund], task: true })).toEqual(["refund", "task"])
    expect(await offered({ tools: [refund], agents: { researcher }, task: false })).toEqual(["refund"])
    // A primary agent of the host's is no sub-agent.
    expect(await offered({ tools: [refund], agents: { support: { mode: "primary" } } })).toEqual(["refund"])
  })

  it("hides task from an agent whose rules deny it", async () => {
    const researcher = { mode: "subagent" as const, description: "Looks things up" }
    const build = { permission: [{ permission: "task", pattern: "*", action: "deny" as const }] }
    expect(await offered({ tools: [refund], agents: { researcher, build } })).toEqual(["refund"])
  })

  it("the coding preset brings task and the to-do lists, as OpenCode has them", async () => {
    const preset = codingPreset({ directory: process.cwd() })
    const tools = await offered(preset)
    expect(tools).toEqual(expect.arrayContaining(["task", "todowrite", "todoread"]))
    expect(tools).not.toContain("question")
  })
})
