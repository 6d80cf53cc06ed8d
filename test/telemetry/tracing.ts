import { AsyncLocalStorage } from "node:async_hooks"
import { type Context, type ContextManager, context, ROOT_CONTEXT } from "@opentelemetry/api"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base"

/** A finished span as the tests compare them: its parent by name, so two runs line up. */
export type SpanRecord = {
  name: string
  parent: string | undefined
  attributes: Record<string, unknown>
  events: { name: string; attributes: Record<string, unknown> }[]
  status: { code: number; message?: string | undefined }
}

/** A tracer whose spans are kept in memory. */
export function createTracing(options: { sampler?: Sampler } = {}) {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.sampler ? { sampler: options.sampler } : {}),
  })
  const tracer = provider.getTracer("agentloop-test")
  const spans = (): SpanRecord[] => records(exporter.getFinishedSpans())
  return { tracer, provider, spans }
}

function records(finished: readonly ReadableSpan[]): SpanRecord[] {
  const names = new Map(finished.map((span) => [span.spanContext().spanId, span.name]))
  return finished.map((span) => {
    const parentId = span.parentSpanContext?.spanId
    return {
      name: span.name,
      parent: parentId === undefined ? undefined : (names.get(parentId) ?? `(unknown ${parentId})`),
      attributes: { ...span.attributes },
      events: span.events.map((event) => ({ name: event.name, attributes: { ...event.attributes } })),
      status: { ...span.status },
    }
  })
}

/**
 * The active context kept in AsyncLocalStorage, as the Node SDK's context manager keeps it: what
 * lets `streamText` nest its spans. Registered globally for the tests of one file.
 */
export function useAsyncContext(): { disable: () => void } {
  const storage = new AsyncLocalStorage<Context>()
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable: () => manager,
    disable: () => manager,
  }
  context.setGlobalContextManager(manager)
  return { disable: () => context.disable() }
}
