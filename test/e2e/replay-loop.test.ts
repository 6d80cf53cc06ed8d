import { createAnthropic } from "@ai-sdk/anthropic"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { createProvider, createRuntime, Tool } from "../../src/index.js"
import { fixtureLines, pricedModel, replayFetch } from "../processor/replay-helpers.js"

describe("a recorded Anthropic tool call through the whole loop", () => {
  it("runs the tool, then sends its result to the provider in the next request", async () => {
    const replay = replayFetch(
      [
        fixtureLines("anthropic--anthropic-json-tool.1.chunks.txt"),
        fixtureLines("anthropic--anthropic-text.chunks.txt"),
      ],
      { done: false },
    )
    const language = createAnthropic({ apiKey: "test", fetch: replay.fetch })("claude-haiku-4-5")
    const ref = { providerID: "anthropic", modelID: "claude-haiku-4-5" }
    const json = Tool.define("json", {
      description: "Report weather elements",
      parameters: z.object({
        elements: z.array(z.object({ location: z.string(), temperature: z.number(), condition: z.string() })),
      }),
      async execute({ elements }) {
        return {
          title: "reported",
          output: `recorded ${elements.length} element(s) for ${elements[0]?.location}`,
          metadata: {},
        }
      },
    })
    const runtime = createRuntime({
      provider: createProvider({
        models: [{ ...ref, language, info: pricedModel(ref.providerID, ref.modelID) }],
        default: ref,
      }),
      tools: [json],
    })
    const session = await runtime.session.create({ title: "Replay" })
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Weather?" }],
    })

    expect(replay.requests).toHaveLength(2)
    const second = JSON.stringify(replay.requests[1]?.body)
    expect(second).toContain('"type":"tool_result"')
    expect(second).toContain("toolu_01KFbKqPYSuAKujiL6mTfzYA")
    expect(second).toContain("recorded 1 element(s) for San Francisco")
    expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    const history = await runtime.session.messages(session.id)
    expect(history.map((message) => message.info.role)).toEqual(["user", "assistant", "assistant"])
    await runtime.close()
  })
})
