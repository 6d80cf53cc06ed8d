/*
 * The part of OpenTelemetry's API the spans need, declared here by shape so that neither our code
 * nor our published types import `@opentelemetry/api`: it is an optional peer, and a tracer from
 * any 1.x copy of it (or from the AI SDK's settings) fits these types as it is.
 */

/** An attribute value, as `@opentelemetry/api` defines it. */
export type AttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>

/** A span's or an event's attributes, as `@opentelemetry/api` defines them. */
export type Attributes = { [key: string]: AttributeValue | undefined }

/** An OpenTelemetry context: an immutable map from symbol keys to values. */
export interface Context {
  getValue(key: symbol): unknown
  setValue(key: symbol, value: unknown): Context
  deleteValue(key: symbol): Context
}

/** The span methods the AI SDK's telemetry calls. */
export interface Span {
  setAttributes(attributes: Attributes): unknown
  addEvent(name: string, attributes?: Attributes): unknown
  setStatus(status: { code: number; message?: string }): unknown
  recordException(exception: { name: string; message: string; stack?: string | undefined }): unknown
  end(): unknown
  isRecording(): boolean
}

/** An OpenTelemetry tracer; without `context`, it parents the span to the active one. */
export interface Tracer {
  startSpan(name: string, options?: { attributes?: Attributes }, context?: Context): Span
}

/**
 * The AI SDK's telemetry settings (`experimental_telemetry` in ai 6). Spans are made only when
 * `isEnabled` is true; inputs (prompts, tool definitions) and outputs (text, tool calls and
 * results) are recorded unless `recordInputs` / `recordOutputs` is false.
 */
export type TelemetrySettings = {
  isEnabled?: boolean
  recordInputs?: boolean
  recordOutputs?: boolean
  /** Names the calls in `operation.name` and `resource.name`. */
  functionId?: string
  /** Recorded on every span as `ai.telemetry.metadata.<key>`. */
  metadata?: Record<string, AttributeValue>
  /** The tracer to use; without it, the global one that `loadGlobalTracer` gives. */
  tracer?: Tracer
}

/** Token counts of a step, as the AI SDK's `LanguageModelUsage` carries them. */
export type TelemetryUsage = {
  inputTokens?: number | undefined
  inputTokenDetails?: {
    noCacheTokens?: number | undefined
    cacheReadTokens?: number | undefined
    cacheWriteTokens?: number | undefined
  }
  outputTokens?: number | undefined
  outputTokenDetails?: { textTokens?: number | undefined; reasoningTokens?: number | undefined }
  totalTokens?: number | undefined
}
