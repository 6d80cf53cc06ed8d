import { type LanguageModelUsage, NoOutputGeneratedError, type TextStreamPart, type ToolSet } from "ai"
import type { CallTelemetry, TelemetryToolCall } from "../telemetry/index.js"
import type { StepCall } from "./run-calls.js"
import { parseCall } from "./tools.js"
import type { ProviderMetadata, SpecStreamPart, SpecStreamResult, SpecUsage } from "./types.js"

type Stream = TextStreamPart<ToolSet>

/** One step's state while its spec parts come in: what `finish-step` and the calls to run need. */
export type StepParts = {
  result: SpecStreamResult
  tools: ToolSet
  telemetry: CallTelemetry
  push: (part: Stream) => void
  started: boolean
  warnings: unknown[]
  /** A `finish` or an `error` part came. */
  terminal: boolean
  /** The model said something: text, reasoning or a tool call. */
  output: boolean
  finish: Extract<SpecStreamPart, { type: "finish" }> | undefined
  errored: boolean
  response: { id: string; timestamp: Date; modelId: string }
  textIDs: IdReserver
  reasoningIDs: IdReserver
  calls: StepCall[]
  /** The inputs of the provider's own calls, for their results. */
  providerInputs: Map<string, unknown>
  recorded: { text: string; reasoning: string; toolCalls: TelemetryToolCall[] }
}

/**
 * What one step's spec parts become, as `streamText` maps them for a single step: a
 * `start-step` before the first; text and reasoning with IDs kept unique; tool calls parsed (an
 * unknown tool or unreadable input goes back to the model as a `tool-error`), ours kept to run
 * once the model is done; response metadata, usage and finish reason kept for `finish-step`.
 * Feed it with `onPart`, then take `callsToRun` and `finishStep`.
 */
export function createStepParts(input: {
  result: SpecStreamResult
  tools: ToolSet
  modelId: string
  telemetry: CallTelemetry
  push: (part: Stream) => void
}): StepParts {
  return {
    result: input.result,
    tools: input.tools,
    telemetry: input.telemetry,
    push: input.push,
    started: false,
    warnings: [],
    terminal: false,
    output: false,
    finish: undefined,
    errored: false,
    response: { id: "", timestamp: new Date(), modelId: input.modelId },
    textIDs: idReserver(),
    reasoningIDs: idReserver(),
    calls: [],
    providerInputs: new Map(),
    recorded: { text: "", reasoning: "", toolCalls: [] },
  }
}

/** Maps one spec part; the deltas, most of a stream, are handled first. */
export function onPart(step: StepParts, part: SpecStreamPart): void {
  if (part.type === "stream-start") {
    step.warnings = part.warnings
    return
  }
  if (!step.started) {
    step.started = true
    step.telemetry.firstChunk()
    step.push({ type: "start-step", request: step.result.request ?? {}, warnings: step.warnings } as Stream)
  }
  switch (part.type) {
    case "text-delta":
      step.output = true
      if (part.delta.length > 0 || part.providerMetadata != null) {
        step.push({
          type: "text-delta",
          id: step.textIDs.current(part.id),
          text: part.delta,
          providerMetadata: part.providerMetadata,
        } as Stream)
        if (step.telemetry.recording) step.recorded.text += part.delta
      }
      return
    case "reasoning-delta":
      step.output = true
      step.push({
        type: "reasoning-delta",
        id: step.reasoningIDs.current(part.id),
        text: part.delta,
        providerMetadata: part.providerMetadata,
      } as Stream)
      if (step.telemetry.recording) step.recorded.reasoning += part.delta
      return
    default:
      onOtherPart(step, part)
  }
}

function onOtherPart(step: StepParts, part: SpecStreamPart): void {
  const { push } = step
  switch (part.type) {
    case "text-start":
      step.output = true
      push({ ...part, id: step.textIDs.reserve(part.id) } as Stream)
      return
    case "text-end":
      push({ ...part, id: step.textIDs.release(part.id) } as Stream)
      return
    case "reasoning-start":
      step.output = true
      push({ ...part, id: step.reasoningIDs.reserve(part.id) } as Stream)
      return
    case "reasoning-end":
      push({ ...part, id: step.reasoningIDs.release(part.id) } as Stream)
      return
    case "tool-input-start":
      step.output = true
      push({ ...part, dynamic: part.dynamic ?? step.tools[part.toolName]?.type === "dynamic" } as Stream)
      return
    case "tool-input-delta":
    case "tool-input-end":
      push(part as Stream)
      return
    case "tool-call":
      step.output = true
      onToolCall(step, part)
      return
    case "tool-result":
      step.output = true
      onProviderResult(step, part)
      return
    default:
      onEndPart(step, part)
  }
}

function onEndPart(step: StepParts, part: SpecStreamPart): void {
  switch (part.type) {
    case "response-metadata":
      if (part.id !== undefined) step.response.id = part.id
      if (part.timestamp !== undefined) step.response.timestamp = part.timestamp
      if (part.modelId !== undefined) step.response.modelId = part.modelId
      return
    case "finish":
      step.terminal = true
      step.finish = part
      return
    case "error":
      step.terminal = true
      step.errored = true
      step.push({ type: "error", error: part.error })
      return
    default:
      // Files, sources, raw chunks and whatever a newer spec adds: nothing to store.
      return
  }
}

// Every call the model made, also for the spans, which list them as streamText's do.
function pushCall(step: StepParts, call: TelemetryToolCall): void {
  step.push({ type: "tool-call", ...call } as Stream)
  if (step.telemetry.recording) step.recorded.toolCalls.push(call)
}

function onToolCall(step: StepParts, part: Extract<SpecStreamPart, { type: "tool-call" }>): void {
  const { tools } = step
  const about = { toolCallId: part.toolCallId, toolName: part.toolName }
  const metadata = part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }
  const parsed = parseCall(tools, part)
  if (part.providerExecuted) {
    step.providerInputs.set(part.toolCallId, parsed.input)
    pushCall(step, {
      ...about,
      input: parsed.input,
      providerExecuted: true,
      dynamic: part.dynamic,
      ...metadata,
    })
    return
  }
  if (!parsed.ok) {
    pushCall(step, {
      ...about,
      input: parsed.input,
      dynamic: true,
      invalid: true,
      error: parsed.error,
      ...metadata,
    })
    step.push({
      type: "tool-error",
      ...about,
      input: parsed.input,
      error: parsed.error.message,
      dynamic: true,
    } as Stream)
    return
  }
  const dynamic = part.dynamic ?? tools[part.toolName]?.type === "dynamic"
  pushCall(step, {
    ...about,
    input: parsed.input,
    ...(dynamic ? { dynamic } : {}),
    ...metadata,
  })
  if (tools[part.toolName]?.execute) step.calls.push({ ...about, input: parsed.input, dynamic })
}

function onProviderResult(step: StepParts, part: Extract<SpecStreamPart, { type: "tool-result" }>): void {
  const about = {
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    input: step.providerInputs.get(part.toolCallId),
    providerExecuted: true,
    ...(part.dynamic === undefined ? {} : { dynamic: part.dynamic }),
  }
  step.push(
    (part.isError
      ? { type: "tool-error", ...about, error: part.result }
      : { type: "tool-result", ...about, output: part.result }) as Stream,
  )
}

/** The calls to run now that the model is done: ours, when it stopped or asked for tools. */
export function callsToRun(step: StepParts): StepCall[] {
  const reason = step.finish?.finishReason.unified
  return reason === "stop" || reason === "tool-calls" ? step.calls.splice(0) : []
}

/** The step's `finish-step` part, or the error of a stream that ended with nothing. */
export function finishStep(step: StepParts): Stream | NoOutputGeneratedError {
  const { finish, errored, response } = step
  if (!step.terminal && !step.output)
    return new NoOutputGeneratedError({
      message: "No output generated. The model stream ended without a finish chunk.",
    })
  const usage = finish ? toUsage(finish.usage) : noUsage()
  const finishReason = finish && !errored ? finish.finishReason.unified : errored ? "error" : "other"
  const providerMetadata: ProviderMetadata | undefined = finish?.providerMetadata
  if (!response.id) response.id = crypto.randomUUID()
  step.telemetry.finish({ finishReason, usage, response, ...step.recorded, providerMetadata })
  return {
    type: "finish-step",
    response: { ...response, headers: step.result.response?.headers },
    usage,
    finishReason,
    rawFinishReason: finish?.finishReason.raw,
    providerMetadata,
  } as Stream
}

/**
 * Part IDs unique within the step, as `streamText` keeps them: a provider that reuses an ID for
 * a later block gets a fresh one for it, so the two blocks stay two parts.
 */
type IdReserver = ReturnType<typeof idReserver>

function idReserver() {
  const used = new Set<string>()
  const active = new Map<string, string>()
  return {
    reserve(id: string): string {
      let unique = id
      for (let suffix = 1; used.has(unique); suffix++) unique = `${id}-${suffix}`
      used.add(unique)
      active.set(id, unique)
      return unique
    },
    current: (id: string): string => active.get(id) ?? id,
    release(id: string): string {
      const unique = active.get(id) ?? id
      active.delete(id)
      return unique
    },
  }
}

/** The spec's usage as the AI SDK reports it to callers (`finish-step`'s `usage`). */
export function toUsage(usage: SpecUsage): LanguageModelUsage {
  const { inputTokens: input, outputTokens: output } = usage
  return {
    inputTokens: input.total,
    inputTokenDetails: {
      noCacheTokens: input.noCache,
      cacheReadTokens: input.cacheRead,
      cacheWriteTokens: input.cacheWrite,
    },
    outputTokens: output.total,
    outputTokenDetails: { textTokens: output.text, reasoningTokens: output.reasoning },
    totalTokens:
      input.total == null && output.total == null ? undefined : (input.total ?? 0) + (output.total ?? 0),
    ...(usage.raw === undefined ? {} : { raw: usage.raw }),
    reasoningTokens: output.reasoning,
    cachedInputTokens: input.cacheRead,
  } as LanguageModelUsage
}

/** Usage of a step that never finished. */
export function noUsage(): LanguageModelUsage {
  return toUsage({
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  })
}
