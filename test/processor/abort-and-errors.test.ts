import { APICallError } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Tool } from "../../src/index.js"
import { say } from "../../src/testing/index.js"
import { turnSetup, user } from "./helpers.js"

const HOUR = 3_600_000

describe("SessionProcessor on abort", () => {
  it("closes text cut off mid-stream and marks the message aborted", async () => {
    const setup = await turnSetup([
      [
        say.chunk({ type: "text-start", id: "t" }),
        say.chunk({ type: "text-delta", id: "t", delta: "Half a sent" }),
        say.delay(HOUR),
      ],
    ])
    setup.runtime.events.on("message.part.delta", () => setup.abort.abort())
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const { info, parts } = await setup.stored()
    const text = parts.find((part) => part.type === "text") as MessageV2.TextPart
    expect(text.text).toBe("Half a sent")
    expect(text.time?.end).toBeDefined()
    expect(info.role === "assistant" && info.error?.name).toBe("AbortedError")
    expect(info.role === "assistant" && info.time.completed).toBeDefined()
  })

  it("marks a tool whose input was still streaming as interrupted", async () => {
    const setup = await turnSetup([
      [
        say.chunk({ type: "tool-input-start", id: "call_1", toolName: "read" }),
        say.chunk({ type: "tool-input-delta", id: "call_1", delta: '{"pa' }),
        say.delay(HOUR),
      ],
    ])
    setup.runtime.events.on("message.part.updated", (event) => {
      if (event.properties.part.type === "tool") setup.abort.abort()
    })
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const tool = (await setup.stored()).parts.find((part) => part.type === "tool") as MessageV2.ToolPart
    expect(tool.state).toMatchObject({
      status: "error",
      error: "Tool execution aborted",
      metadata: { interrupted: true },
    })
  })

  it("marks a running tool as interrupted, keeping its progress metadata", async () => {
    const slow = Tool.define("slow", {
      description: "Waits until cancelled",
      parameters: z.object({}),
      async execute(_args, context) {
        await context.metadata({ metadata: { progress: 0.5 } })
        await new Promise((_resolve, reject) =>
          context.abort.addEventListener("abort", () => reject(context.abort.reason)),
        )
        return { title: "never", output: "", metadata: {} }
      },
    })
    const setup = await turnSetup([[say.toolCall("slow", {})]])
    setup.runtime.events.on("message.part.updated", (event) => {
      const { part } = event.properties
      if (part.type === "tool" && part.state.status === "running" && part.state.metadata?.progress)
        setup.abort.abort()
    })
    expect(await setup.processor.process({ messages: user("go"), tools: [slow] })).toBe("stop")
    const tool = (await setup.stored()).parts.find((part) => part.type === "tool") as MessageV2.ToolPart
    expect(tool.state.status).toBe("error")
    expect(tool.state.status === "error" && tool.state.metadata).toMatchObject({ progress: 0.5 })
    const { info } = await setup.stored()
    expect(info.role === "assistant" && info.error?.name).toBe("AbortedError")
  })
})

describe("SessionProcessor on provider errors", () => {
  it("stores a classified provider error on the message and stops", async () => {
    const error = new APICallError({
      message: "Internal server error",
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode: 500,
      responseBody: "{}",
      isRetryable: true,
    })
    const setup = await turnSetup([{ throws: error }])
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const { info } = await setup.stored()
    expect(info.role === "assistant" && info.error).toMatchObject({
      name: "APIError",
      data: { statusCode: 500, isRetryable: true },
    })
  })

  it("keeps what streamed before a mid-stream error", async () => {
    const setup = await turnSetup([
      [say.text("partial answer"), say.error({ type: "overloaded_error", message: "Overloaded" })],
    ])
    expect(await setup.processor.process({ messages: user("hi") })).toBe("stop")
    const { info, parts } = await setup.stored()
    expect(parts.find((part) => part.type === "text")).toMatchObject({ text: "partial answer" })
    expect(info.role === "assistant" && info.error?.name).toBe("APIError")
  })

  it("asks for compaction on a context overflow, without storing an error", async () => {
    const overflow = new APICallError({
      message: "prompt is too long: 250000 tokens > 200000 maximum",
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode: 400,
      isRetryable: false,
    })
    const setup = await turnSetup([{ throws: overflow }])
    expect(await setup.processor.process({ messages: user("hi") })).toBe("compact")
    const { info } = await setup.stored()
    expect(info.role === "assistant" && info.error).toBeUndefined()
    expect(info.role === "assistant" && info.time.completed).toBeDefined()
  })

  it("ignores stream parts it does not know", async () => {
    const setup = await turnSetup([
      [
        say.chunk({ type: "raw", rawValue: { anything: true } }),
        say.chunk({ type: "response-metadata", id: "resp_1", modelId: "x" }),
        say.chunk({ type: "source", sourceType: "url", id: "s1", url: "https://example.com" }),
        say.text("still fine"),
      ],
    ])
    expect(await setup.processor.process({ messages: user("hi") })).toBe("continue")
    expect((await setup.stored()).parts.map((part) => part.type)).toEqual([
      "step-start",
      "text",
      "step-finish",
    ])
  })
})

describe("SessionProcessor storage writes", () => {
  it("writes as often for 10,000 deltas as for 10", async () => {
    const count = async (chunks: number) => {
      const setup = await turnSetup([
        [say.text("x".repeat(10_000), { chunks }), say.reasoning("y".repeat(1_000), { chunks })],
      ])
      await setup.processor.process({ messages: user("hi") })
      const deltas = setup.events.filter((event) => event.type === "message.part.delta").length
      return { writes: setup.writes.length, deltas }
    }
    const few = await count(10)
    const many = await count(10_000)
    expect(many.writes).toBe(few.writes)
    expect(many.deltas).toBe(11_000)
  })
})
