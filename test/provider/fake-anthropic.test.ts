import { createAnthropic } from "@ai-sdk/anthropic"
import { stepCountIs, streamText, tool } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { type FakeAnthropic, startFakeAnthropic } from "../consumer/fake-anthropic.js"

// The consumer check runs README's main example against this server; these tests drive it
// with the real provider package, so a fake that drifted from Anthropic's wire format fails here.

const refund = tool({
  description: "Refund an order",
  inputSchema: z.object({ orderID: z.string() }),
  execute: async ({ orderID }) => ({ orderID, refunded: true }),
})

const servers: FakeAnthropic[] = []

async function start(): Promise<FakeAnthropic> {
  const server = await startFakeAnthropic()
  servers.push(server)
  return server
}

afterEach(async () => {
  vi.unstubAllEnvs()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe("startFakeAnthropic", () => {
  it("streams a refund tool call, then the answer once the tool result comes back", async () => {
    const server = await start()
    // The README example builds its provider with `anthropic(...)`, which reads this variable.
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url)
    vi.stubEnv("ANTHROPIC_API_KEY", "test")
    const result = streamText({
      model: createAnthropic()("claude-sonnet-4-5"),
      prompt: "Refund order A1",
      tools: { refund },
      stopWhen: stepCountIs(3),
    })

    expect(await result.text).toBe("Order A1 is refunded.")
    const steps = await result.steps
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"])
    expect(steps[0]?.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ["refund", { orderID: "A1" }],
    ])
    expect(steps[1]?.usage).toMatchObject({ inputTokens: 1000, outputTokens: 20 })
    expect(server.requests).toHaveLength(2)
    expect(server.problems).toEqual([])
  })

  it("answers a second request without the tool result with an error, and records why", async () => {
    const server = await start()
    const model = createAnthropic({ baseURL: server.url, apiKey: "test" })("claude-sonnet-4-5")
    const toolWithoutExecute = tool({ inputSchema: z.object({ orderID: z.string() }) })
    const first = streamText({ model, prompt: "Refund order A1", tools: { refund: toolWithoutExecute } })
    expect(await first.finishReason).toBe("tool-calls")

    const errors: unknown[] = []
    const second = streamText({
      model,
      prompt: "Refund order A1",
      tools: { refund: toolWithoutExecute },
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    await second.consumeStream()

    expect(errors).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
    expect(server.problems).toEqual([
      "request 2: the last message carries no tool_result for toolu_01FakeRefundA1 with the refund's output",
    ])
  })
})
