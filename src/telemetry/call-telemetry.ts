import type { Recording } from "./attributes.js"
import {
  baseAttributes,
  doStreamFinishAttributes,
  doStreamStartAttributes,
  outerFinishAttributes,
  outerStartAttributes,
  type TelemetryCall,
  type TelemetryStep,
  toolResultAttributes,
  toolStartAttributes,
} from "./call-attributes.js"
import { contextWithSpan, now, recordError } from "./spans.js"
import { TelemetryTracerMissingError } from "./telemetry-errors.js"
import type { Span, TelemetrySettings } from "./types.js"

/**
 * What one model call (one step) reports to tracing. Every method is safe to call in any order
 * and more than once: what is already ended stays as it was.
 */
export type CallTelemetry = {
  /** True when the step's text and tool calls end up on a span; collect them only then. */
  readonly recording: boolean
  /** The model's first part arrived (after `stream-start`). */
  firstChunk(): void
  /** The step finished, its tools included: ends the `doStream` span, sets the outcome on both. */
  finish(step: TelemetryStep): void
  /** The call failed: the error goes on the spans still open, which end. */
  fail(error: unknown): void
  /** Runs one tool execution in an `ai.toolCall` span; its result or error goes on it, and comes back as is. */
  tool<T>(call: { toolCallId: string; toolName: string; input: unknown }, run: () => Promise<T>): Promise<T>
  /** Ends the spans still open. */
  end(): void
}

/**
 * The spans `streamText` makes for a single step, for a model call made without it: an
 * `ai.streamText` span (parented to the active span) with an `ai.streamText.doStream` child from
 * the request to the step's end, and an `ai.toolCall` span per tool execution under `doStream`,
 * where `streamText` puts them: it runs tools while the model's stream is read, and holds that
 * span open until their results are in. Span and attribute names and values follow ai 6's.
 *
 * Off unless `settings.isEnabled` is true, and then it costs nothing: no span, no thunk called.
 * Enabled, it needs `settings.tracer` (see `loadGlobalTracer` for the global one).
 */
export function createCallTelemetry(
  settings: TelemetrySettings | undefined,
  call: TelemetryCall,
): CallTelemetry {
  if (settings?.isEnabled !== true) return createNoTelemetry()
  const { tracer } = settings
  if (tracer === undefined) {
    throw new TelemetryTracerMissingError({
      message:
        "Telemetry is enabled without a tracer: pass `tracer`, for instance the one loadGlobalTracer() gives",
    })
  }
  const recording: Recording = {
    inputs: settings.recordInputs !== false,
    outputs: settings.recordOutputs !== false,
  }
  const base = baseAttributes(settings, call)
  const outer = tracer.startSpan("ai.streamText", {
    attributes: outerStartAttributes(settings, call, base, recording),
  })
  if (!outer.isRecording()) {
    // Sampled out or suppressed: its children would be too, and a child of a suppressed span
    // would otherwise start a trace of its own.
    outer.end()
    return createNoTelemetry()
  }
  const startedAt = now()
  const doStream = tracer.startSpan(
    "ai.streamText.doStream",
    { attributes: doStreamStartAttributes(settings, call, base, recording) },
    contextWithSpan(outer),
  )
  return spanTelemetry({
    settings,
    tracer,
    recording,
    outer,
    doStream,
    startedAt,
    toolParent: contextWithSpan(doStream),
    open: { outer: true, doStream: true, firstChunk: true },
  })
}

/** One call's open spans, and which of them are still open. */
type CallSpans = {
  settings: TelemetrySettings
  tracer: NonNullable<TelemetrySettings["tracer"]>
  recording: Recording
  outer: Span
  doStream: Span
  startedAt: number
  toolParent: ReturnType<typeof contextWithSpan>
  open: { outer: boolean; doStream: boolean; firstChunk: boolean }
}

function spanTelemetry(spans: CallSpans): CallTelemetry {
  const { recording, outer, doStream, open } = spans
  return {
    recording: recording.outputs,
    firstChunk() {
      if (!open.firstChunk || !open.doStream) return
      open.firstChunk = false
      const attributes = { "ai.response.msToFirstChunk": now() - spans.startedAt }
      doStream.addEvent("ai.stream.firstChunk", attributes)
      doStream.setAttributes(attributes)
    },
    finish: (step) => finish(spans, step),
    fail(error) {
      if (open.doStream) endWith(doStream, error)
      if (open.outer) endWith(outer, error)
      open.doStream = false
      open.outer = false
    },
    tool: (toolCall, run) => tool(spans, toolCall, run),
    end() {
      if (open.doStream) doStream.end()
      if (open.outer) outer.end()
      open.doStream = false
      open.outer = false
    },
  }
}

function finish(spans: CallSpans, step: TelemetryStep): void {
  const { doStream, open, recording } = spans
  if (!open.doStream) return
  const msToFinish = now() - spans.startedAt
  doStream.addEvent("ai.stream.finish")
  doStream.setAttributes({
    "ai.response.msToFinish": msToFinish,
    "ai.response.avgOutputTokensPerSecond": (1000 * (step.usage.outputTokens ?? 0)) / msToFinish,
  })
  doStream.setAttributes(doStreamFinishAttributes(step, recording))
  open.doStream = false
  doStream.end()
  if (open.outer) spans.outer.setAttributes(outerFinishAttributes(step, recording))
}

async function tool<T>(
  spans: CallSpans,
  toolCall: { toolCallId: string; toolName: string; input: unknown },
  run: () => Promise<T>,
): Promise<T> {
  const attributes = toolStartAttributes(spans.settings, toolCall, spans.recording)
  const span = spans.tracer.startSpan("ai.toolCall", { attributes }, spans.toolParent)
  try {
    const output = await run()
    if (spans.recording.outputs) span.setAttributes(toolResultAttributes(output))
    return output
  } catch (error) {
    recordError(span, error)
    throw error
  } finally {
    span.end()
  }
}

function endWith(span: Span, error: unknown): void {
  recordError(span, error)
  span.end()
}

/** Telemetry that is off: the same methods, doing nothing. */
function createNoTelemetry(): CallTelemetry {
  return {
    recording: false,
    firstChunk() {},
    finish() {},
    fail() {},
    tool: (_call, run) => run(),
    end() {},
  }
}
