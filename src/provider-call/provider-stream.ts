import type { ModelMessage } from "ai"
import { endsOnAbort, type ModelStream, streamTextModel } from "../processor/model-stream.js"
import type { StreamInput } from "../processor/stream-input.js"
import {
  createCallTelemetry,
  loadGlobalTracer,
  type TelemetrySettings,
  type Tracer,
} from "../telemetry/index.js"
import { createSchemaCache } from "../tool/json-schema.js"
import { startsWith } from "../util/starts-with.js"
import { assemblePrompt, EMPTY_BODY, extendBody, type PromptBody, toSpecMessage } from "./prompt.js"
import { stepStream } from "./step-stream.js"
import { specTools } from "./tools.js"
import { isSpecModel, type SpecMessage, type SpecVersion } from "./types.js"

/** Options of `createProviderStream`, the processor's default way of calling the model. */
export type ProviderStreamOptions = {
  /** OpenTelemetry spans of each call, named and attributed as the AI SDK's `streamText` makes them. */
  telemetry?: TelemetrySettings
}

/**
 * The model call straight through the provider's spec (`doStream`), with no `streamText` in
 * between: messages are converted once and kept, so a step converts only what is new; tool
 * schemas are converted once per tool; the parts come out as `streamText` would emit them.
 * A call that needs what only the SDK does (a model given by ID or of an older spec, a file to
 * download, any file for a v4 model) goes through `streamText`. Keep one per runtime or custom loop: its caches are what
 * make later steps cheap.
 */
export function createProviderStream(options: ProviderStreamOptions = {}): ModelStream {
  // Per spec version, since their files differ: each message converted once, and per
  // conversation (keyed by its first message) the messages of its latest call and their prompt
  // body; a call whose messages start with those extends the body with the rest only.
  const versions = {
    v3: createConversions(),
    v4: createConversions(),
  }
  const schemaOf = createSchemaCache()
  // Telemetry on without a tracer means the global OpenTelemetry tracer, loaded once, on first use.
  let globalTracer: Promise<Tracer> | undefined
  const telemetrySettings = async (
    metadata: StreamInput["metadata"],
  ): Promise<TelemetrySettings | undefined> => {
    const given = options.telemetry
    if (given?.isEnabled !== true) return given
    const settings = metadata ? { ...given, metadata: { ...metadata, ...given.metadata } } : given
    if (settings.tracer !== undefined) return settings
    globalTracer ??= loadGlobalTracer()
    return { ...settings, tracer: await globalTracer }
  }

  return (call) => {
    const { model, request, tools, abort } = call
    if (!isSpecModel(model)) return streamTextModel(call)
    let body: PromptBody | undefined
    try {
      body = promptBody(versions[model.specificationVersion], model.specificationVersion, request.messages)
    } catch (error) {
      // A bad prompt fails the stream, as it would through streamText, not the call of the seam.
      return deferred(() => Promise.reject(error), abort)
    }
    if (body === undefined) return streamTextModel(call)

    return deferred(async () => {
      const prompt = assemblePrompt(request.system, body)
      const definitions = await specTools(tools, request, schemaOf)
      const settings = {
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.topP === undefined ? {} : { topP: request.topP }),
      }
      const telemetry = createCallTelemetry(await telemetrySettings(request.metadata), {
        model: { provider: model.provider, modelId: model.modelId },
        settings: { ...settings, maxRetries: 0 },
        ...(request.headers === undefined ? {} : { headers: request.headers }),
        prompt: () => prompt,
        input: () => ({ system: request.system, messages: request.messages }),
        tools: () => definitions.tools ?? [],
        ...(definitions.toolChoice === undefined ? {} : { toolChoice: definitions.toolChoice }),
      })
      try {
        const result = await model.doStream({
          prompt,
          ...settings,
          ...definitions,
          ...(request.providerOptions === undefined ? {} : { providerOptions: request.providerOptions }),
          ...(request.headers === undefined ? {} : { headers: request.headers }),
          includeRawChunks: false,
          abortSignal: abort,
        })
        return stepStream({
          result,
          tools,
          abort,
          modelId: model.modelId,
          messages: request.messages,
          telemetry,
        })
      } catch (error) {
        telemetry.fail(error)
        throw error
      }
    }, abort)
  }
}

type Conversions = ReturnType<typeof createConversions>

function createConversions() {
  return {
    messages: new WeakMap<ModelMessage, SpecMessage | null>(),
    conversations: new WeakMap<ModelMessage, { sources: readonly ModelMessage[]; body: PromptBody }>(),
  }
}

/** The call's prompt body, or undefined when a message needs the SDK. */
function promptBody(
  conversions: Conversions,
  version: SpecVersion,
  messages: readonly ModelMessage[],
): PromptBody | undefined {
  const first = messages[0]
  const known = first === undefined ? undefined : conversions.conversations.get(first)
  const from = known && startsWith(messages, known.sources) ? known.sources.length : 0
  const added: SpecMessage[] = []
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!
    let spec = conversions.messages.get(message)
    if (spec === undefined) {
      spec = toSpecMessage(message, version) ?? null
      conversions.messages.set(message, spec)
    }
    if (spec === null) return undefined
    added.push(spec)
  }
  const body = extendBody(from === 0 ? EMPTY_BODY : known!.body, added)
  if (first !== undefined) conversions.conversations.set(first, { sources: messages.slice(), body })
  return body
}

type Read<T> = IteratorResult<T, undefined>

/**
 * An iterator whose source is made on the first read: the provider call is async, the seam is
 * not. It ends on `abort` as the step stream does (see endsOnAbort): the first read also when
 * the provider has not answered and ignores the signal.
 */
function deferred<T>(
  start: () => Promise<AsyncIterator<T>>,
  abort: AbortSignal,
): AsyncIterableIterator<T> & { [endsOnAbort]: true } {
  let source: Promise<AsyncIterator<T>> | undefined
  let started: AsyncIterator<T> | undefined
  const iterator = {
    [endsOnAbort]: true as const,
    // Once the source is there, reads go straight to it: a promise more per part is measurable.
    next: (): Promise<Read<T>> => {
      if (started) return started.next()
      if (abort.aborted) return Promise.resolve({ done: true, value: undefined })
      source ??= start()
      return untilAbort(
        source.then((inner) => {
          started = inner
          return inner.next()
        }),
        abort,
      )
    },
    return: async (): Promise<Read<T>> => {
      const inner = await source?.catch(() => undefined)
      await inner?.return?.()
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

/** `read`, or `done` as soon as `abort` aborts: once per call, for the wait for the provider. */
function untilAbort<T>(read: Promise<Read<T>>, abort: AbortSignal): Promise<Read<T>> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve({ done: true, value: undefined })
    abort.addEventListener("abort", onAbort, { once: true })
    read.then(resolve, reject).finally(() => abort.removeEventListener("abort", onAbort))
  })
}
