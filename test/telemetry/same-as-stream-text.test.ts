import { createRequire } from "node:module"
import { jsonSchema, type ModelMessage, simulateReadableStream, streamText, tool } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createCallTelemetry, type TelemetrySettings } from "../../src/telemetry/index.js"
import { createTracing, type SpanRecord, useAsyncContext } from "./tracing.js"

// streamText nests its spans through the active context, which needs a context manager.
let asyncContext: { disable: () => void }
beforeAll(() => {
  asyncContext = useAsyncContext()
})
afterAll(() => asyncContext.disable())

/** A provider stream part (the spec type, which ai does not re-export). */
type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer Part>
    ? Part
    : never

/** Attributes timed by the clock: their keys must match, their values cannot. */
const TIMED = new Set([
  "ai.response.msToFirstChunk",
  "ai.response.msToFinish",
  "ai.response.avgOutputTokensPerSecond",
])

type Scenario = {
  telemetry: Omit<TelemetrySettings, "tracer">
  tools: boolean
  toolFails?: boolean
  reasoning?: boolean
}

const system = "You answer about the weather."
const messages: ModelMessage[] = [{ role: "user", content: "How warm is it in Paris?" }]
const settings = { maxOutputTokens: 100, temperature: 0.5, topP: 0.9 }
const headers = { "x-request": "r-1" }

function modelParts(scenario: Scenario): LanguageModelV3StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    {
      type: "response-metadata",
      id: "resp-1",
      modelId: "mock-model-2024",
      timestamp: new Date(1_700_000_000_000),
    },
    ...(scenario.reasoning
      ? ([
          { type: "reasoning-start", id: "r1" },
          { type: "reasoning-delta", id: "r1", delta: "Paris is in France." },
          { type: "reasoning-end", id: "r1" },
        ] as const)
      : []),
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "Let me check." },
    { type: "text-end", id: "t1" },
    ...(scenario.tools
      ? ([
          { type: "tool-call", toolCallId: "call-1", toolName: "weather", input: '{"city":"Paris"}' },
        ] as const)
      : []),
    {
      type: "finish",
      finishReason: { unified: scenario.tools ? "tool-calls" : "stop", raw: "end" },
      usage: {
        inputTokens: { total: 12, noCache: 8, cacheRead: 4, cacheWrite: 0 },
        outputTokens: { total: 7, text: 5, reasoning: 2 },
      },
      providerMetadata: { mock: { requestId: "q-1" } },
    },
  ]
}

function weatherTool(scenario: Scenario) {
  return tool({
    description: "The temperature in a city",
    inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
    execute: async ({ city }) => {
      if (scenario.toolFails) throw new Error(`no station in ${city}`)
      return { city, celsius: 21 }
    },
  })
}

/** The spans of a real `streamText` call, and what it sent and got, to replay. */
async function throughStreamText(scenario: Scenario) {
  const { tracer, spans } = createTracing()
  const model = new MockLanguageModelV3({
    provider: "mock-provider",
    modelId: "mock-model",
    doStream: async () => ({ stream: simulateReadableStream({ chunks: modelParts(scenario) }) }),
  })
  const weather = weatherTool(scenario)
  // A variable, not a literal: ai 7's options have no `tracer` (its telemetry is integrations).
  const telemetryOptions = { ...scenario.telemetry, tracer }
  const result = streamText({
    model,
    system,
    messages,
    ...(scenario.tools ? { tools: { weather } } : {}),
    ...settings,
    headers,
    maxRetries: 0,
    experimental_telemetry: telemetryOptions,
    onError: () => {},
  })
  await result.consumeStream()
  const [step] = await result.steps
  return { spans: spans(), request: model.doStreamCalls[0]!, step: step!, weather }
}

/** The same call reported through createCallTelemetry, event by event, with the same data. */
async function throughCallTelemetry(scenario: Scenario, sdk: Awaited<ReturnType<typeof throughStreamText>>) {
  const { tracer, spans } = createTracing()
  const { request, step, weather } = sdk
  const telemetry = createCallTelemetry(
    { ...scenario.telemetry, tracer },
    {
      model: { provider: "mock-provider", modelId: "mock-model" },
      settings: { ...settings, maxRetries: 0 },
      headers,
      prompt: () => request.prompt,
      tools: () => request.tools ?? [],
      toolChoice: request.toolChoice,
      input: () => ({ system, messages }),
    },
  )
  telemetry.firstChunk()
  for (const call of step.toolCalls) {
    const run = async () =>
      (weather.execute as (input: unknown, options: object) => Promise<unknown>)(call.input, {
        toolCallId: call.toolCallId,
        messages,
        context: undefined,
      })
    await telemetry.tool(call, run).catch(() => undefined)
  }
  telemetry.finish({
    finishReason: step.finishReason,
    usage: step.usage,
    response: step.response,
    text: step.text,
    reasoning: step.reasoningText,
    toolCalls: step.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    providerMetadata: step.providerMetadata,
  })
  telemetry.end()
  return spans()
}

/** A span with its timed values blanked and its exception stack dropped: what two runs share. */
function comparable(span: SpanRecord) {
  const blank = (attributes: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(attributes)
        .filter(([key]) => key !== "exception.stacktrace")
        .map(([key, value]) => [key, TIMED.has(key) ? "(timed)" : value]),
    )
  return {
    ...span,
    attributes: blank(span.attributes),
    events: span.events.map((event) => ({ ...event, attributes: blank(event.attributes) })),
  }
}

const byName = (spans: SpanRecord[]) =>
  [...spans].sort((a, b) => a.name.localeCompare(b.name)).map(comparable)

const scenarios: [string, Scenario][] = [
  [
    "a tool call, with function ID, metadata and reasoning",
    {
      telemetry: {
        isEnabled: true,
        functionId: "weather-agent",
        metadata: { user: "u-1", tags: ["a", "b"] },
      },
      tools: true,
      reasoning: true,
    },
  ],
  ["text only, with default settings", { telemetry: { isEnabled: true }, tools: false }],
  [
    "inputs and outputs not recorded",
    { telemetry: { isEnabled: true, recordInputs: false, recordOutputs: false }, tools: true },
  ],
  [
    "a tool that throws",
    { telemetry: { isEnabled: true, functionId: "weather-agent" }, tools: true, toolFails: true },
  ],
]

/**
 * The spans follow ai 6's conventions: ai 7's `streamText` takes no tracer (its telemetry moved
 * to integrations), so the side-by-side comparison runs where ai 6 is installed (CI's first pass).
 */
const AI_MAJOR = Number(createRequire(import.meta.url)("ai/package.json").version.split(".")[0])

describe.runIf(AI_MAJOR === 6)("createCallTelemetry, next to ai 6's streamText", () => {
  it.each(scenarios)("makes the spans streamText makes for %s", async (_name, scenario) => {
    const sdk = await throughStreamText(scenario)
    const ours = await throughCallTelemetry(scenario, sdk)

    // The shape first, so that a mismatch reads as one.
    const shape = (spans: SpanRecord[]) =>
      spans.map(({ name, parent }) => `${name} < ${parent ?? "(root)"}`).sort()
    expect(shape(ours)).toEqual(shape(sdk.spans))
    for (const [index, span] of byName(sdk.spans).entries()) {
      const mine = byName(ours)[index]!
      expect(Object.keys(mine.attributes).sort(), span.name).toEqual(Object.keys(span.attributes).sort())
    }
    expect(byName(ours)).toEqual(byName(sdk.spans))
  })

  it("nests streamText's spans as the comparison assumes", async () => {
    const { spans } = await throughStreamText(scenarios[0]![1])
    expect(spans.map(({ name, parent }) => [name, parent])).toEqual([
      ["ai.toolCall", "ai.streamText.doStream"],
      ["ai.streamText.doStream", "ai.streamText"],
      ["ai.streamText", undefined],
    ])
  })

  it("compares a failing tool by a span streamText marks failed", async () => {
    const { spans } = await throughStreamText(scenarios[3]![1])
    const toolSpan = spans.find((span) => span.name === "ai.toolCall")!
    expect(toolSpan.status).toEqual({ code: 2, message: "no station in Paris" })
    expect(toolSpan.events.map((event) => event.name)).toEqual(["exception"])
  })
})
