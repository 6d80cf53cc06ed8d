// The example of docs/testing.md runs here, so the docs stay true; the consumer check compiles it.
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { MessageV2, SessionProcessor, Tool } from "../../src/index.js"
import { createBuilders, createTestRuntime, say } from "../../src/testing/index.js"

const weather = Tool.define("weather", {
  description: "Current weather for a city",
  parameters: z.object({ city: z.string() }),
  async execute({ city }) {
    return { title: city, output: `${city}: 21°C, sunny`, metadata: { celsius: 21 } }
  },
})

describe("unit-testing an agent with the testing kit", () => {
  it("answers with what the weather tool found", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [weather],
      turns: [
        [say.toolCall("weather", { city: "Lisbon" }), say.usage({ input: 1_000, output: 50 })],
        [say.text("21°C and sunny in Lisbon."), say.usage({ input: 1_100, output: 10 })],
      ],
    })
    const session = await runtime.session.create()
    const answer = MessageV2.throwIfFailed(
      await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: "What's the weather in Lisbon?" }],
      }),
    )

    expect(answer.parts.filter((part) => part.type === "text").map((part) => part.text)).toEqual([
      "21°C and sunny in Lisbon.",
    ])
    expect(answer.info.cost).toBe(0.00345)
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("Lisbon: 21°C, sunny")
    const stored = (await runtime.session.messages(session.id)).flatMap((message) => message.parts)
    expect(stored.find((part) => part.type === "tool")?.state).toMatchObject({ status: "completed" })
    await runtime.close()
  })

  it("processes one model call with SessionProcessor", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [weather],
      turns: [
        [
          say.text("Let me check."),
          say.toolCall("weather", { city: "Lisbon" }),
          say.usage({ input: 1_000, output: 50 }),
        ],
      ],
    })
    const session = await runtime.session.create()
    const build = createBuilders()
    const userID = await runtime.session.newMessageID(session.id)
    const ref = { providerID: "scripted", modelID: "scripted-model" }
    await runtime.session.saveMessage({
      info: build.user(session.id, { id: userID, model: ref }),
      parts: [
        {
          ...build.text(session.id, userID, "What's the weather in Lisbon?"),
          id: runtime.session.newPartID(userID),
        },
      ],
    })
    const assistant = build.assistant(session.id, userID, {
      id: await runtime.session.newMessageID(session.id),
      ...ref,
    })
    await runtime.session.updateMessage(assistant)

    const defaultModel = runtime.provider.defaultModel()
    const processor = SessionProcessor.create({
      runtime,
      assistantMessage: assistant,
      model: defaultModel,
      abort: new AbortController().signal,
    })
    const history = await runtime.session.messages(session.id)
    const next = await processor.process({
      messages: await MessageV2.toModelMessages(history, defaultModel.info),
      tools: runtime.tools.enabled({ ruleset: [] }),
    })

    expect(next).toBe("continue")
    // What the model was sent: the user's question and the tool's schema.
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("What's the weather in Lisbon?")
    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual(["weather"])
    // What was stored: the tool result, the cost at $3 / $15 per million tokens.
    const [, answer] = await runtime.session.messages(session.id)
    const tool = answer?.parts.find((part) => part.type === "tool")
    expect(tool?.type === "tool" && tool.state).toMatchObject({
      status: "completed",
      output: "Lisbon: 21°C, sunny",
    })
    expect(answer?.info).toMatchObject({ finish: "tool-calls", cost: 0.00375 })
    await runtime.close()
  })
})
