import type { Context, Span } from "./types.js"

/**
 * The key `@opentelemetry/api` keeps the active span under. Its `createContextKey` is
 * `Symbol.for(description)` so that copies of the API share keys; the same call gives ours.
 */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN")

/** `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2

/**
 * A context whose span is `span`: what `trace.setSpan(context.active(), span)` gives, built
 * without the API. Children are parented through it explicitly rather than through the active
 * context, because the processor runs tools side by side and long after the span started, where
 * the active context is not theirs. It carries the span only: context values other than the span
 * (baggage, say) are not passed to the tracer for the child spans.
 */
export function contextWithSpan(span: Span): Context {
  return mapContext(new Map<symbol, unknown>([[SPAN_KEY, span]]))
}

function mapContext(values: ReadonlyMap<symbol, unknown>): Context {
  return {
    getValue: (key) => values.get(key),
    setValue: (key, value) => mapContext(new Map(values).set(key, value)),
    deleteValue: (key) => {
      const rest = new Map(values)
      rest.delete(key)
      return mapContext(rest)
    },
  }
}

/** Marks the span failed with the error, as the AI SDK's `recordErrorOnSpan` does. */
export function recordError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException({ name: error.name, message: error.message, stack: error.stack })
    span.setStatus({ code: STATUS_ERROR, message: error.message })
  } else {
    span.setStatus({ code: STATUS_ERROR })
  }
}

/** Milliseconds on the clock the AI SDK times streams with. */
export function now(): number {
  return globalThis.performance?.now() ?? Date.now()
}
