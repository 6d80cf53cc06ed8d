import { type LanguageModel, streamText, type TextStreamPart, type ToolSet } from "ai"
import type { StreamInput } from "./stream-input.js"

/**
 * The one seam of a model call: given the request, the tools (already wired to their context
 * and hooks) and the call's signal, a stream of AI SDK parts. The processor stores whatever
 * comes out and does not care how it was produced; tool execution, events and persistence do
 * not depend on it.
 */
export type ModelStream = (call: {
  model: LanguageModel
  request: StreamInput
  tools: ToolSet
  abort: AbortSignal
}) => AsyncIterable<TextStreamPart<ToolSet>>

/**
 * Set (to true) on a part stream whose read in flight ends with `done` as soon as the call's
 * `abort` signal aborts, whatever the provider does, such as `createProviderStream`'s. The
 * processor reads such a stream as it is; any other it reads through a race with the abort, a
 * promise more per part.
 */
export const endsOnAbort: unique symbol = Symbol("agentloop.endsOnAbort")

/** The model call through the AI SDK's `streamText`, one step, no retries (the loop retries). */
export const streamTextModel: ModelStream = ({ model, request, tools, abort }) =>
  streamText({
    model,
    messages: request.messages,
    ...(request.system === undefined ? {} : { system: request.system }),
    tools,
    ...pick(request, ["temperature", "topP", "maxOutputTokens", "toolChoice", "providerOptions", "headers"]),
    abortSignal: abort,
    // Retries belong to the loop, which shows them as status and bounds them.
    maxRetries: 0,
    // Errors arrive as stream parts and are stored; the SDK need not log them too.
    onError: () => {},
  }).fullStream

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {}
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key]
  return picked
}
