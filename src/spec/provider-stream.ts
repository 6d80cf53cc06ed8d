import type { ModelMessage } from "ai"
import { type ModelStream, streamTextModel } from "../processor/model-stream.js"
import { createSchemaCache } from "../tool/json-schema.js"
import { assemblePrompt, toSpecMessage } from "./prompt.js"
import { stepStream } from "./step-stream.js"
import { createCallTelemetry, type TelemetrySettings } from "./telemetry.js"
import { specTools } from "./tools.js"
import { isSpecModel, type SpecMessage } from "./types.js"

export type ProviderStreamOptions = {
  /** OpenTelemetry spans of each call, named and attributed as the AI SDK's `streamText` makes them. */
  telemetry?: TelemetrySettings
}

/**
 * The model call straight through the provider's spec (`doStream`), with no `streamText` in
 * between: messages are converted once and kept, so a step converts only what is new; tool
 * schemas are converted once per tool; the parts come out as `streamText` would emit them.
 * A call that needs what only the SDK does (a model given by ID or of an older spec, files in the
 * prompt) goes through `streamText`. Keep one per runtime or custom loop: its caches are what
 * make later steps cheap.
 */
export function createProviderStream(options: ProviderStreamOptions = {}): ModelStream {
  const converted = new WeakMap<ModelMessage, SpecMessage | null>()
  const schemaOf = createSchemaCache()

  const specMessages = (messages: readonly ModelMessage[]): SpecMessage[] | undefined => {
    const result: SpecMessage[] = []
    for (const message of messages) {
      let spec = converted.get(message)
      if (spec === undefined) {
        spec = toSpecMessage(message) ?? null
        converted.set(message, spec)
      }
      if (spec === null) return undefined
      result.push(spec)
    }
    return result
  }

  return (call) => {
    const { model, request, tools, abort } = call
    if (!isSpecModel(model)) return streamTextModel(call)
    const messages = specMessages(request.messages)
    if (messages === undefined) return streamTextModel(call)

    return deferred(async () => {
      const prompt = assemblePrompt(request.system, messages)
      const definitions = await specTools(tools, request, schemaOf)
      const settings = {
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.topP === undefined ? {} : { topP: request.topP }),
      }
      const telemetry = createCallTelemetry(options.telemetry, {
        model: { provider: model.provider, modelId: model.modelId },
        settings: { ...settings, maxRetries: 0 },
        ...(request.headers === undefined ? {} : { headers: request.headers }),
        prompt: () => prompt,
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
    })
  }
}

/** An iterator whose source is made on the first read: the provider call is async, the seam is not. */
function deferred<T>(start: () => Promise<AsyncIterator<T>>): AsyncIterableIterator<T> {
  let source: Promise<AsyncIterator<T>> | undefined
  let started: AsyncIterator<T> | undefined
  const iterator: AsyncIterableIterator<T> = {
    // Once the source is there, reads go straight to it: a promise more per part is measurable.
    next: () => {
      if (started) return started.next()
      source ??= start()
      return source.then((inner) => {
        started = inner
        return inner.next()
      })
    },
    return: async () => {
      const inner = await source?.catch(() => undefined)
      await inner?.return?.()
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}
