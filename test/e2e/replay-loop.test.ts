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

describe("a real Anthropic overflow error through the whole loop", () => {
  it("compacts and replays the request when the API says the prompt is too long", async () => {
    // Anthropic's documented error body for a prompt over the model's window.
    const tooLong = {
      status: 400,
      body: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 215000 tokens > 200000 maximum",
        },
      },
    }
    const replay = replayFetch(
      [
        fixtureLines("anthropic--anthropic-text.chunks.txt"),
        tooLong,
        fixtureLines("anthropic--anthropic-text.chunks.txt"),
        fixtureLines("anthropic--anthropic-text.chunks.txt"),
      ],
      { done: false },
    )
    const language = createAnthropic({ apiKey: "test", fetch: replay.fetch })("claude-haiku-4-5")
    const ref = { providerID: "anthropic", modelID: "claude-haiku-4-5" }
    const runtime = createRuntime({
      provider: createProvider({
        models: [{ ...ref, language, info: pricedModel(ref.providerID, ref.modelID) }],
        default: ref,
      }),
    })
    const errors: unknown[] = []
    runtime.events.on("session.error", (event) => {
      errors.push(event.properties.error)
    })
    const session = await runtime.session.create({ title: "Replay" })
    const ask = (text: string) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
    await ask("How are you?")
    const answer = await ask("Tell me about the parser in src/parse.ts")

    expect(replay.requests).toHaveLength(4)
    const summary = replay.requests[2]?.body as { system?: unknown; tools?: unknown; messages: unknown[] }
    expect(JSON.stringify(summary.system)).toContain("You summarise a conversation")
    expect(summary.tools).toBeUndefined()
    expect(JSON.stringify(summary.messages)).toContain("How are you?")
    const replayed = JSON.stringify(replay.requests[3]?.body)
    expect(replayed).toContain("What did we do so far?")
    expect(replayed).toContain("Tell me about the parser in src/parse.ts")
    expect(replayed).not.toContain("How are you?")
    expect(answer.info).toMatchObject({ role: "assistant", finish: "stop" })
    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    expect(errors).toEqual([])
    await runtime.close()
  })
})
