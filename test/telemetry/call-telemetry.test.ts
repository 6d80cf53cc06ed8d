import { AlwaysOffSampler } from "@opentelemetry/sdk-trace-base"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest"
import {
  createCallTelemetry,
  type TelemetryCall,
  type TelemetrySettings,
  type TelemetryToolCall,
  TelemetryTracerMissingError,
  type TelemetryUsage,
  type Tracer,
} from "../../src/telemetry/index.js"
import { createTracing, type SpanRecord, useAsyncContext } from "./tracing.js"

let asyncContext: { disable: () => void }
beforeAll(() => {
  asyncContext = useAsyncContext()
})
afterAll(() => asyncContext.disable())

const usage = {
  inputTokens: 10,
  inputTokenDetails: { noCacheTokens: 10, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokens: 4,
  outputTokenDetails: { textTokens: 4, reasoningTokens: undefined },
  totalTokens: 14,
}
const step = {
  finishReason: "tool-calls",
  usage,
  response: { id: "resp-1", modelId: "model-1", timestamp: new Date(0) },
  text: "Checking.",
  toolCalls: [{ toolCallId: "call-1", toolName: "weather", input: { city: "Paris" } }],
  providerMetadata: { provider: { cached: false } },
}

function call(overrides: Partial<TelemetryCall> = {}): TelemetryCall {
  return {
    model: { provider: "provider-1", modelId: "model-1" },
    settings: { maxRetries: 0 },
    prompt: () => [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
    ],
    tools: () => [{ type: "function", name: "weather", inputSchema: { type: "object" } }],
    toolChoice: { type: "auto" },
    ...overrides,
  }
}

function start(
  settings: Omit<TelemetrySettings, "tracer"> = { isEnabled: true },
  overrides?: Partial<TelemetryCall>,
) {
  const tracing = createTracing()
  const telemetry = createCallTelemetry({ ...settings, tracer: tracing.tracer }, call(overrides))
  return { ...tracing, telemetry }
}

const named = (spans: SpanRecord[], name: string) => spans.filter((span) => span.name === name)
const one = (spans: SpanRecord[], name: string) => {
  const found = named(spans, name)
  expect(found).toHaveLength(1)
  return found[0]!
}

describe("createCallTelemetry", () => {
  it("makes nothing and calls no thunk when telemetry is off", async () => {
    const tracer = { startSpan: vi.fn() }
    const prompt = vi.fn(() => [])
    const tools = vi.fn(() => [])
    for (const settings of [undefined, {}, { isEnabled: false, tracer }]) {
      const telemetry = createCallTelemetry(settings, call({ prompt, tools }))
      expect(telemetry.recording).toBe(false)
      telemetry.firstChunk()
      expect(await telemetry.tool(step.toolCalls[0]!, async () => "ran")).toBe("ran")
      await expect(
        telemetry.tool(step.toolCalls[0]!, async () => Promise.reject(new Error("x"))),
      ).rejects.toThrow("x")
      telemetry.finish(step)
      telemetry.fail(new Error("late"))
      telemetry.end()
    }
    expect(tracer.startSpan).not.toHaveBeenCalled()
    expect(prompt).not.toHaveBeenCalled()
    expect(tools).not.toHaveBeenCalled()
  })

  it("refuses to be enabled without a tracer", () => {
    expect(() => createCallTelemetry({ isEnabled: true }, call())).toThrow(TelemetryTracerMissingError)
    try {
      createCallTelemetry({ isEnabled: true }, call())
    } catch (error) {
      expect(TelemetryTracerMissingError.isInstance(error)).toBe(true)
    }
  })

  it("parents the call to the active span, and doStream to the call", async () => {
    const { tracer, spans } = createTracing()
    await new Promise<void>((resolve) =>
      tracer.startActiveSpan("user request", (span) => {
        const telemetry = createCallTelemetry({ isEnabled: true, tracer }, call())
        telemetry.finish(step)
        telemetry.end()
        span.end()
        resolve()
      }),
    )
    expect(spans().map(({ name, parent }) => [name, parent])).toEqual([
      ["ai.streamText.doStream", "ai.streamText"],
      ["ai.streamText", "user request"],
      ["user request", undefined],
    ])
  })

  it("records the prompt from the provider prompt when the call's own input is not given", () => {
    const { telemetry, spans } = start()
    telemetry.end()
    expect(one(spans(), "ai.streamText").attributes["ai.prompt"]).toBe(
      JSON.stringify({
        system: "Be brief.",
        messages: [{ role: "user", content: [{ type: "text", text: "Weather?" }] }],
      }),
    )
  })

  it("leaves out inputs when recordInputs is false, without calling the thunks", () => {
    const prompt = vi.fn(() => [])
    const tools = vi.fn(() => [])
    const { telemetry, spans } = start({ isEnabled: true, recordInputs: false }, { prompt, tools })
    telemetry.finish(step)
    telemetry.end()
    const recorded = spans().flatMap((span) => Object.keys(span.attributes))
    expect(recorded).not.toContain("ai.prompt")
    expect(recorded.filter((key) => key.startsWith("ai.prompt."))).toEqual([])
    expect(recorded).toContain("ai.response.text")
    expect(prompt).not.toHaveBeenCalled()
    expect(tools).not.toHaveBeenCalled()
  })

  it("leaves out outputs when recordOutputs is false, tool arguments and results included", async () => {
    const { telemetry, spans } = start({ isEnabled: true, recordOutputs: false })
    expect(telemetry.recording).toBe(false)
    await telemetry.tool(step.toolCalls[0]!, async () => ({ celsius: 21 }))
    telemetry.finish(step)
    telemetry.end()
    const recorded = spans().flatMap((span) => Object.keys(span.attributes))
    for (const key of [
      "ai.response.text",
      "ai.response.toolCalls",
      "ai.response.providerMetadata",
      "ai.toolCall.args",
      "ai.toolCall.result",
    ]) {
      expect(recorded).not.toContain(key)
    }
    expect(recorded).toContain("ai.prompt.messages")
    expect(recorded).toContain("ai.usage.outputTokens")
  })

  it("reports the step's outcome on both spans and times the stream on doStream", () => {
    const { telemetry, spans } = start()
    expect(telemetry.recording).toBe(true)
    telemetry.firstChunk()
    telemetry.firstChunk()
    telemetry.finish(step)
    telemetry.end()
    const doStream = one(spans(), "ai.streamText.doStream")
    expect(doStream.events.map((event) => event.name)).toEqual(["ai.stream.firstChunk", "ai.stream.finish"])
    expect(doStream.attributes).toMatchObject({
      "ai.response.finishReason": "tool-calls",
      "ai.response.id": "resp-1",
      "ai.response.timestamp": "1970-01-01T00:00:00.000Z",
      "ai.usage.totalTokens": 14,
      "gen_ai.response.finish_reasons": ["tool-calls"],
      "gen_ai.usage.output_tokens": 4,
      "ai.response.toolCalls": JSON.stringify([{ type: "tool-call", ...step.toolCalls[0] }]),
    })
    expect(typeof doStream.attributes["ai.response.msToFirstChunk"]).toBe("number")
    expect(one(spans(), "ai.streamText").attributes).toMatchObject({
      "ai.response.finishReason": "tool-calls",
      "ai.response.text": "Checking.",
      "ai.usage.inputTokens": 10,
    })
  })

  it("marks the open spans failed with the error and ends them", () => {
    const { telemetry, spans } = start()
    telemetry.fail(new TypeError("connection reset"))
    telemetry.fail(new Error("again"))
    telemetry.finish(step)
    telemetry.end()
    expect(spans()).toHaveLength(2)
    for (const span of spans()) {
      expect(span.status).toEqual({ code: 2, message: "connection reset" })
      expect(span.events.map((event) => [event.name, event.attributes["exception.type"]])).toEqual([
        ["exception", "TypeError"],
      ])
      expect(span.attributes["ai.response.finishReason"]).toBeUndefined()
    }
  })

  it("marks a failure that is not an Error by its status alone", () => {
    const { telemetry, spans } = start()
    telemetry.fail("aborted")
    for (const span of spans()) {
      expect(span.status).toEqual({ code: 2 })
      expect(span.events).toEqual([])
    }
  })

  it("fails only the call once the step has finished", () => {
    const { telemetry, spans } = start()
    telemetry.finish(step)
    telemetry.fail(new Error("closed early"))
    telemetry.end()
    expect(one(spans(), "ai.streamText.doStream").status).toEqual({ code: 0 })
    expect(one(spans(), "ai.streamText").status).toEqual({ code: 2, message: "closed early" })
  })

  it("ends both spans on end() without a finish, once", () => {
    const { telemetry, spans } = start()
    telemetry.end()
    telemetry.end()
    expect(spans().map((span) => span.name)).toEqual(["ai.streamText.doStream", "ai.streamText"])
  })

  it("makes nothing past a call span the sampler drops", async () => {
    const { tracer, spans } = createTracing({ sampler: new AlwaysOffSampler() })
    const telemetry = createCallTelemetry({ isEnabled: true, tracer }, call())
    expect(telemetry.recording).toBe(false)
    expect(await telemetry.tool(step.toolCalls[0]!, async () => 1)).toBe(1)
    telemetry.finish(step)
    telemetry.end()
    expect(spans()).toEqual([])
  })
})

describe("CallTelemetry.tool", () => {
  it("runs tools side by side, each in a span under doStream with its arguments and result", async () => {
    const { telemetry, spans } = start({ isEnabled: true, functionId: "agent", metadata: { team: "a" } })
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow = telemetry.tool({ toolCallId: "call-1", toolName: "slow", input: { n: 1 } }, async () => {
      await gate
      return "slow done"
    })
    const fast = telemetry.tool(
      { toolCallId: "call-2", toolName: "fast", input: { n: 2 } },
      async () => "fast done",
    )
    expect(await fast).toBe("fast done")
    release()
    expect(await slow).toBe("slow done")
    telemetry.finish(step)
    telemetry.end()
    const tools = named(spans(), "ai.toolCall")
    expect(tools.map((span) => [span.attributes["ai.toolCall.name"], span.parent])).toEqual([
      ["fast", "ai.streamText.doStream"],
      ["slow", "ai.streamText.doStream"],
    ])
    expect(tools[1]!.attributes).toEqual({
      "operation.name": "ai.toolCall agent",
      "resource.name": "agent",
      "ai.operationId": "ai.toolCall",
      "ai.telemetry.functionId": "agent",
      "ai.telemetry.metadata.team": "a",
      "ai.toolCall.name": "slow",
      "ai.toolCall.id": "call-1",
      "ai.toolCall.args": '{"n":1}',
      "ai.toolCall.result": '"slow done"',
    })
  })

  it("records a tool's error on its span and rethrows it as thrown", async () => {
    const { telemetry, spans } = start()
    const refusal = new Error("not allowed")
    await expect(telemetry.tool(step.toolCalls[0]!, async () => Promise.reject(refusal))).rejects.toBe(
      refusal,
    )
    const span = one(spans(), "ai.toolCall")
    expect(span.status).toEqual({ code: 2, message: "not allowed" })
    expect(span.attributes["ai.toolCall.result"]).toBeUndefined()
    expect(span.events.map((event) => event.attributes["exception.message"])).toEqual(["not allowed"])
  })

  it("leaves out a result JSON cannot write, instead of failing the tool", async () => {
    const { telemetry, spans } = start()
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    expect(await telemetry.tool(step.toolCalls[0]!, async () => cyclic)).toBe(cyclic)
    expect(one(spans(), "ai.toolCall").attributes["ai.toolCall.result"]).toBeUndefined()
  })
})

describe("telemetry types", () => {
  it("take OpenTelemetry's tracer and the AI SDK's settings and usage as they are", () => {
    expectTypeOf<import("@opentelemetry/api").Tracer>().toExtend<Tracer>()
    expectTypeOf<import("ai").LanguageModelUsage>().toExtend<TelemetryUsage>()
    expectTypeOf<{ toolCallId: string; toolName: string; input: unknown }>().toExtend<TelemetryToolCall>()
  })
})
