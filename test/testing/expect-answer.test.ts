import { APICallError } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import {
  createTestRuntime,
  expectAnswer,
  say,
  TurnEndedEarlyError,
  turnText,
} from "../../src/testing/index.js"

const weather = Tool.define("weather", {
  description: "Current weather for a city",
  parameters: z.object({ city: z.string() }),
  async execute({ city }, context) {
    await context.ask({ permission: "weather", patterns: [city] })
    return { title: city, output: `${city}: 21°C, sunny`, metadata: {} }
  },
})

async function prompt(options: Parameters<typeof createTestRuntime>[0], input: { noReply?: boolean } = {}) {
  const { runtime } = createTestRuntime(options)
  const session = await runtime.session.create()
  const result = await runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: "What's the weather in Lisbon?" }],
    ...input,
  })
  await runtime.close()
  return result
}

const rejecting = {
  tools: [weather],
  permission: [{ permission: "weather", pattern: "*", action: "ask" as const }],
  onPermission: async () => "reject" as const,
  turns: [[say.text("Let me check."), say.toolCall("weather", { city: "Lisbon" })], [say.text("Sorry.")]],
}

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("turnText", () => {
  it("is the final message's text when the turn answered", async () => {
    const result = await prompt({ turns: [[say.reasoning("Easy."), say.text("21°C and sunny.")]] })
    expect(turnText(result)).toBe("21°C and sunny.")
    expect(turnText({ info: result.info, parts: result.parts })).toBe("21°C and sunny.")
  })

  it("throws saying who refused which call when a refusal ended the turn", async () => {
    const result = await prompt(rejecting)
    const error = thrownBy(() => turnText(result))
    expect(TurnEndedEarlyError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe(
      'the turn ended with finish "rejected" after the host refused the call of weather; its text: "Let me check."',
    )
    expect((error as TurnEndedEarlyError).data).toMatchObject({ finish: "rejected", tool: "weather" })
  })

  it("reads the same from the final message alone, as stored", async () => {
    const { info, parts } = await prompt(rejecting)
    expect(() => turnText({ info, parts })).toThrow(
      'the turn ended with finish "tool-calls" after the host refused the call of weather; its text: "Let me check."',
    )
  })

  it("throws with the stored error when the model call failed", async () => {
    const refused = new APICallError({
      message: "Bad request: unknown parameter",
      statusCode: 400,
      isRetryable: false,
      url: "https://example.invalid",
      requestBodyValues: {},
    })
    const result = await prompt({ turns: [{ throws: refused }] })
    const error = thrownBy(() => turnText(result))
    expect((error as Error).message).toBe(
      'the turn ended with finish "error": APIError: Bad request: unknown parameter',
    )
    expect((error as TurnEndedEarlyError).data.error).toEqual({
      name: "APIError",
      message: "Bad request: unknown parameter",
    })
    expect(() => turnText({ info: result.info, parts: result.parts })).toThrow(
      'the turn ended with finish "error": APIError: Bad request: unknown parameter',
    )
  })

  it("throws when the prompt stored its message without a reply", async () => {
    const result = await prompt({}, { noReply: true })
    expect(() => turnText({ info: result.info, parts: result.parts })).toThrow(
      "the prompt got no reply: its result is the user message (a prompt with noReply?)",
    )
  })
})

describe("expectAnswer", () => {
  it("returns the result, typed as an assistant's answer, when the turn answered", async () => {
    const result = await prompt({ turns: [[say.text("Hi.")]] })
    const answer = expectAnswer(result)
    expect(answer).toBe(result)
    expect(answer.info.finish).toBe("stop")
  })

  it("throws as turnText does when the turn ended early", async () => {
    const result = await prompt(rejecting)
    expect(() => expectAnswer(result)).toThrow(TurnEndedEarlyError)
  })
})
