import { NoOutputGeneratedError, type TextStreamPart, type ToolSet } from "ai"
import type { CallTelemetry, TelemetryToolCall } from "../telemetry/index.js"
import type { StepCall } from "./run-calls.js"
import { parseCall } from "./tools.js"
import type { ProviderMetadata, SpecStreamPart, SpecStreamResult } from "./types.js"
import { noUsage, toUsage } from "./usage.js"

type Stream = TextStreamPart<ToolSet>

/**
 * What one step's spec parts become, as `streamText` maps them for a single step: a
 * `start-step` before the first; text and reasoning with IDs kept unique; tool calls parsed (an
 * unknown tool or unreadable input goes back to the model as a `tool-error`), ours kept to run
 * once the model is done; response metadata, usage and finish reason kept for `finish-step`.
 */
export function createStepParts(input: {
  result: SpecStreamResult
  tools: ToolSet
  modelId: string
  telemetry: CallTelemetry
  push: (part: Stream) => void
}) {
  const { result, tools, telemetry, push } = input
  let started = false
  let warnings: unknown[] = []
  let terminal = false
  let output = false
  let finish: Extract<SpecStreamPart, { type: "finish" }> | undefined
  let errored = false
  const response = { id: "", timestamp: new Date(), modelId: input.modelId }
  const textIDs = idReserver()
  const reasoningIDs = idReserver()
  const calls: StepCall[] = []
  const providerInputs = new Map<string, unknown>()
  const recorded = { text: "", reasoning: "", toolCalls: [] as TelemetryToolCall[] }

  const onPart = (part: SpecStreamPart) => {
    if (part.type === "stream-start") {
      warnings = part.warnings
      return
    }
    if (!started) {
      started = true
      telemetry.firstChunk()
      push({ type: "start-step", request: result.request ?? {}, warnings } as Stream)
    }
    switch (part.type) {
      case "text-delta":
        output = true
        if (part.delta.length > 0 || part.providerMetadata != null) {
          push({
            type: "text-delta",
            id: textIDs.current(part.id),
            text: part.delta,
            providerMetadata: part.providerMetadata,
          } as Stream)
          if (telemetry.recording) recorded.text += part.delta
        }
        return
      case "reasoning-delta":
        output = true
        push({
          type: "reasoning-delta",
          id: reasoningIDs.current(part.id),
          text: part.delta,
          providerMetadata: part.providerMetadata,
        } as Stream)
        if (telemetry.recording) recorded.reasoning += part.delta
        return
      case "text-start":
        output = true
        push({ ...part, id: textIDs.reserve(part.id) } as Stream)
        return
      case "text-end":
        push({ ...part, id: textIDs.release(part.id) } as Stream)
        return
      case "reasoning-start":
        output = true
        push({ ...part, id: reasoningIDs.reserve(part.id) } as Stream)
        return
      case "reasoning-end":
        push({ ...part, id: reasoningIDs.release(part.id) } as Stream)
        return
      case "tool-input-start":
        output = true
        push({ ...part, dynamic: part.dynamic ?? tools[part.toolName]?.type === "dynamic" } as Stream)
        return
      case "tool-input-delta":
      case "tool-input-end":
        push(part as Stream)
        return
      case "tool-call":
        output = true
        onToolCall(part)
        return
      case "tool-result":
        output = true
        onProviderResult(part)
        return
      case "response-metadata":
        if (part.id !== undefined) response.id = part.id
        if (part.timestamp !== undefined) response.timestamp = part.timestamp
        if (part.modelId !== undefined) response.modelId = part.modelId
        return
      case "finish":
        terminal = true
        finish = part
        return
      case "error":
        terminal = true
        errored = true
        push({ type: "error", error: part.error })
        return
      default:
        // Files, sources, raw chunks and whatever a newer spec adds: nothing to store.
        return
    }
  }

  // Every call the model made, also for the spans, which list them as streamText's do.
  const pushCall = (call: TelemetryToolCall) => {
    push({ type: "tool-call", ...call } as Stream)
    if (telemetry.recording) recorded.toolCalls.push(call)
  }

  const onToolCall = (part: Extract<SpecStreamPart, { type: "tool-call" }>) => {
    const about = { toolCallId: part.toolCallId, toolName: part.toolName }
    const metadata = part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }
    const parsed = parseCall(tools, part)
    if (part.providerExecuted) {
      providerInputs.set(part.toolCallId, parsed.input)
      pushCall({
        ...about,
        input: parsed.input,
        providerExecuted: true,
        dynamic: part.dynamic,
        ...metadata,
      })
      return
    }
    if (!parsed.ok) {
      pushCall({
        ...about,
        input: parsed.input,
        dynamic: true,
        invalid: true,
        error: parsed.error,
        ...metadata,
      })
      push({
        type: "tool-error",
        ...about,
        input: parsed.input,
        error: parsed.error.message,
        dynamic: true,
      } as Stream)
      return
    }
    const dynamic = part.dynamic ?? tools[part.toolName]?.type === "dynamic"
    pushCall({
      ...about,
      input: parsed.input,
      ...(dynamic ? { dynamic } : {}),
      ...metadata,
    })
    if (tools[part.toolName]?.execute) calls.push({ ...about, input: parsed.input, dynamic })
  }

  const onProviderResult = (part: Extract<SpecStreamPart, { type: "tool-result" }>) => {
    const about = {
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: providerInputs.get(part.toolCallId),
      providerExecuted: true,
      ...(part.dynamic === undefined ? {} : { dynamic: part.dynamic }),
    }
    push(
      (part.isError
        ? { type: "tool-error", ...about, error: part.result }
        : { type: "tool-result", ...about, output: part.result }) as Stream,
    )
  }

  /** The calls to run now that the model is done: ours, when it stopped or asked for tools. */
  const callsToRun = (): StepCall[] => {
    const reason = finish?.finishReason.unified
    return reason === "stop" || reason === "tool-calls" ? calls.splice(0) : []
  }

  /** The step's `finish-step` part, or the error of a stream that ended with nothing. */
  const finishStep = (): Stream | NoOutputGeneratedError => {
    if (!terminal && !output)
      return new NoOutputGeneratedError({
        message: "No output generated. The model stream ended without a finish chunk.",
      })
    const usage = finish ? toUsage(finish.usage) : noUsage()
    const finishReason = finish && !errored ? finish.finishReason.unified : errored ? "error" : "other"
    const providerMetadata: ProviderMetadata | undefined = finish?.providerMetadata
    if (!response.id) response.id = crypto.randomUUID()
    telemetry.finish({ finishReason, usage, response, ...recorded, providerMetadata })
    return {
      type: "finish-step",
      response: { ...response, headers: result.response?.headers },
      usage,
      finishReason,
      rawFinishReason: finish?.finishReason.raw,
      providerMetadata,
    } as Stream
  }

  return { onPart, callsToRun, finishStep }
}

/**
 * Part IDs unique within the step, as `streamText` keeps them: a provider that reuses an ID for
 * a later block gets a fresh one for it, so the two blocks stay two parts.
 */
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
