import {
  json,
  metadataAttributes,
  operationAttributes,
  put,
  type Recording,
  usageAttributes,
} from "./attributes.js"
import { promptInput, stringifyPrompt } from "./prompt.js"
import type { Attributes, TelemetrySettings, TelemetryUsage } from "./types.js"

/** The call settings `streamText` records, as `ai.settings.<name>`, in its order. */
export type TelemetryCallSettings = {
  maxOutputTokens?: number | undefined
  temperature?: number | undefined
  topP?: number | undefined
  topK?: number | undefined
  presencePenalty?: number | undefined
  frequencyPenalty?: number | undefined
  stopSequences?: string[] | undefined
  seed?: number | undefined
  maxRetries?: number | undefined
}

const SETTING_NAMES = [
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "stopSequences",
  "seed",
  "maxRetries",
] as const satisfies readonly (keyof TelemetryCallSettings)[]

/** One model call as its spans describe it. Thunks are called only when inputs are recorded. */
export type TelemetryCall = {
  model: { provider: string; modelId: string }
  settings: TelemetryCallSettings
  headers?: Record<string, string | undefined> | undefined
  /** The provider prompt (`LanguageModelV3Prompt`), for `ai.prompt.messages`. */
  prompt: () => unknown
  /** The provider tool definitions, for `ai.prompt.tools`. */
  tools: () => unknown[]
  toolChoice?: unknown
  /**
   * The call as asked (`{ system, prompt, messages }` at the AI SDK's level), for `ai.prompt` as
   * `streamText` records it. Without it, one derived from the provider prompt.
   */
  input?: () => unknown
}

/** A tool call as `ai.response.toolCalls` lists it; pass a `tool-call` part's fields for its exact JSON. */
export type TelemetryToolCall = {
  toolCallId: string
  toolName: string
  input: unknown
  [field: string]: unknown
}

/** A finished step, as its spans report it. */
export type TelemetryStep = {
  finishReason: string
  usage: TelemetryUsage
  response: { id: string; modelId: string; timestamp: Date }
  text: string
  reasoning?: string | undefined
  toolCalls: TelemetryToolCall[]
  providerMetadata?: unknown
}

/** Model, settings, metadata and headers: what both spans of a call start with. */
export function baseAttributes(settings: TelemetrySettings, call: TelemetryCall): Attributes {
  const attributes: Attributes = {}
  put(attributes, "ai.model.provider", call.model.provider)
  put(attributes, "ai.model.id", call.model.modelId)
  for (const name of SETTING_NAMES) put(attributes, `ai.settings.${name}`, call.settings[name])
  metadataAttributes(attributes, settings.metadata)
  for (const [name, value] of Object.entries(call.headers ?? {}))
    put(attributes, `ai.request.headers.${name}`, value)
  return attributes
}

/** `ai.streamText` at its start. */
export function outerStartAttributes(
  settings: TelemetrySettings,
  call: TelemetryCall,
  base: Attributes,
  recording: Recording,
): Attributes {
  const attributes = { ...operationAttributes("ai.streamText", settings.functionId), ...base }
  if (recording.inputs)
    put(attributes, "ai.prompt", json(call.input ? call.input() : promptInput(call.prompt())))
  return attributes
}

/** `ai.streamText.doStream` at its start: the provider request and the standard `gen_ai.request.*`. */
export function doStreamStartAttributes(
  settings: TelemetrySettings,
  call: TelemetryCall,
  base: Attributes,
  recording: Recording,
): Attributes {
  const attributes = { ...operationAttributes("ai.streamText.doStream", settings.functionId), ...base }
  if (recording.inputs) {
    put(attributes, "ai.prompt.messages", stringifyPrompt(call.prompt()))
    put(
      attributes,
      "ai.prompt.tools",
      call.tools().map((tool) => json(tool)),
    )
    if (call.toolChoice != null) put(attributes, "ai.prompt.toolChoice", json(call.toolChoice))
  }
  const { model, settings: request } = call
  put(attributes, "gen_ai.system", model.provider)
  put(attributes, "gen_ai.request.model", model.modelId)
  put(attributes, "gen_ai.request.frequency_penalty", request.frequencyPenalty)
  put(attributes, "gen_ai.request.max_tokens", request.maxOutputTokens)
  put(attributes, "gen_ai.request.presence_penalty", request.presencePenalty)
  put(attributes, "gen_ai.request.stop_sequences", request.stopSequences)
  put(attributes, "gen_ai.request.temperature", request.temperature)
  put(attributes, "gen_ai.request.top_k", request.topK)
  put(attributes, "gen_ai.request.top_p", request.topP)
  return attributes
}

/** `ai.streamText.doStream` when the step finished: the response, usage and `gen_ai.response.*`. */
export function doStreamFinishAttributes(step: TelemetryStep, recording: Recording): Attributes {
  const { finishReason, response, usage } = step
  const attributes: Attributes = {}
  put(attributes, "ai.response.finishReason", finishReason)
  if (recording.outputs) put(attributes, "ai.response.toolCalls", toolCallsJson(step.toolCalls))
  put(attributes, "ai.response.id", response.id)
  put(attributes, "ai.response.model", response.modelId)
  put(attributes, "ai.response.timestamp", response.timestamp.toISOString())
  usageAttributes(attributes, usage)
  put(attributes, "gen_ai.response.finish_reasons", [finishReason])
  put(attributes, "gen_ai.response.id", response.id)
  put(attributes, "gen_ai.response.model", response.modelId)
  put(attributes, "gen_ai.usage.input_tokens", usage.inputTokens)
  put(attributes, "gen_ai.usage.output_tokens", usage.outputTokens)
  if (recording.outputs) {
    put(attributes, "ai.response.text", step.text)
    put(attributes, "ai.response.reasoning", step.reasoning)
    put(attributes, "ai.response.providerMetadata", json(step.providerMetadata))
  }
  return attributes
}

/** `ai.streamText` when the step (the only one) finished. */
export function outerFinishAttributes(step: TelemetryStep, recording: Recording): Attributes {
  const attributes: Attributes = {}
  put(attributes, "ai.response.finishReason", step.finishReason)
  if (recording.outputs) {
    put(attributes, "ai.response.text", step.text)
    put(attributes, "ai.response.reasoning", step.reasoning)
    put(attributes, "ai.response.toolCalls", toolCallsJson(step.toolCalls))
    put(attributes, "ai.response.providerMetadata", json(step.providerMetadata))
  }
  usageAttributes(attributes, step.usage)
  return attributes
}

function toolCallsJson(calls: readonly TelemetryToolCall[]): string | undefined {
  return calls.length > 0 ? json(calls.map((call) => ({ type: "tool-call", ...call }))) : undefined
}

/** `ai.toolCall` at its start. */
export function toolStartAttributes(
  settings: TelemetrySettings,
  call: { toolCallId: string; toolName: string; input: unknown },
  recording: Recording,
): Attributes {
  const attributes = operationAttributes("ai.toolCall", settings.functionId)
  metadataAttributes(attributes, settings.metadata)
  put(attributes, "ai.toolCall.name", call.toolName)
  put(attributes, "ai.toolCall.id", call.toolCallId)
  // An output in the AI SDK's eyes: recordOutputs governs it, not recordInputs.
  if (recording.outputs) put(attributes, "ai.toolCall.args", json(call.input))
  return attributes
}

/** `ai.toolCall` when the tool returned (only called when outputs are recorded). */
export function toolResultAttributes(output: unknown): Attributes {
  const attributes: Attributes = {}
  put(attributes, "ai.toolCall.result", json(output))
  return attributes
}
