import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const tool = (id: string, offered?: Tool.Info["offered"]) =>
  Tool.define(id, {
    description: id,
    parameters: z.object({}),
    ...(offered ? { offered } : {}),
    execute: async () => "",
  })

describe("tools offered per model", () => {
  it("sends a step only the tools offered to the model the turn runs on", async () => {
    const asked: { providerID: string; modelID: string }[] = []
    const { runtime, model } = createTestRuntime({
      tools: [
        tool("for_others", (m) => {
          asked.push(m)
          return m.modelID !== "scripted-model"
        }),
        tool("for_all"),
      ],
      turns: [[say.text("Hi")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
    const sent = (model.calls[0]?.tools ?? []).map((entry) => entry.name)
    expect(sent).toContain("for_all")
    expect(sent).not.toContain("for_others")
    expect(asked).toEqual([{ providerID: "scripted", modelID: "scripted-model" }])
  })
})
