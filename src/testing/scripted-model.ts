import { MockLanguageModelV3 } from "ai/test"
import { type CallOptions, chunksOf, finishChunk, type ScriptStep, type StreamChunk } from "./script.js"

/** What the model does on one call: steps to stream, an error to throw before streaming, or a function of the call. */
export type Turn =
  | ScriptStep[]
  | { throws: unknown }
  | ((call: CallOptions) => ScriptStep[] | { throws: unknown })

export type ScriptedModel = MockLanguageModelV3 & {
  /** Every call the model received, in order: prompt, tools, settings. */
  readonly calls: CallOptions[]
}

/**
 * An AI SDK language model that plays `turns`, one per call, and records every call. Use it to
 * unit-test agents without a network: `scriptedModel([[say.text("Hi")]])`.
 */
export function scriptedModel(
  turns: readonly Turn[],
  options: {
    provider?: string
    modelId?: string /** Played for every call past the end of `turns`. */
    fallback?: Turn
  } = {},
): ScriptedModel {
  let next = 0
  const model = new MockLanguageModelV3({
    provider: options.provider ?? "scripted",
    modelId: options.modelId ?? "scripted-model",
    doStream: async (call) => {
      const turn = turns[next] ?? options.fallback
      next++
      if (turn === undefined)
        throw new Error(`scriptedModel: call #${next} has no turn (the script has ${turns.length})`)
      const played = typeof turn === "function" ? turn(call) : turn
      if (!Array.isArray(played)) throw played.throws
      return { stream: play(played, call.abortSignal) }
    },
  })
  Object.defineProperty(model, "calls", { get: () => model.doStreamCalls })
  return model as ScriptedModel
}

function play(steps: readonly ScriptStep[], signal: AbortSignal | undefined): ReadableStream<StreamChunk> {
  const queue: (StreamChunk | { delay: number })[] = [{ type: "stream-start", warnings: [] }]
  steps.forEach((step, index) => {
    if (step.type === "delay") queue.push({ delay: step.ms })
    else queue.push(...chunksOf(step, index))
  })
  if (!steps.some((step) => step.type === "error")) queue.push(finishChunk(steps))

  return new ReadableStream<StreamChunk>({
    // Every pull enqueues a chunk (after any pauses before it): a pull that enqueues nothing is
    // not always pulled again, and ai 7's stream pipeline then waits forever.
    async pull(controller) {
      for (;;) {
        const item = queue.shift()
        if (item === undefined) return controller.close()
        if (!("delay" in item)) return controller.enqueue(item)
        try {
          await wait(item.delay, signal)
        } catch (error) {
          return controller.error(error)
        }
      }
    },
  })
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
