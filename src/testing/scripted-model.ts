import { MockLanguageModelV3 } from "ai/test"
import {
  type CallOptions,
  chunksOf,
  finishChunk,
  type ScriptStep,
  type StreamChunk,
  type Turn,
} from "./script.js"
import { ScriptedToolUnknownError, ScriptedTurnsUnusedError } from "./script-errors.js"
import { summarizeTurn } from "./turn-summary.js"

/** Options of `scriptedModel`: its IDs, what it plays past the script, and which tools it may call. */
export type ScriptedModelOptions = {
  /** The model's provider ID; default "scripted". */
  provider?: string
  /** The model's ID; default "scripted-model". */
  modelId?: string
  /** Played for every call past the end of `turns`. */
  fallback?: Turn
  /**
   * Whether the runtime has a tool, besides those a call offers. When given, a scripted call of
   * a tool neither offered nor known fails the model call with ScriptedToolUnknownError (unless
   * the step is marked `unavailable`); without it, scripted calls are not checked.
   */
  knownTools?: (name: string) => boolean
}

/**
 * The language model `scriptedModel` returns: an AI SDK mock model (it goes wherever a model
 * does) that also keeps the calls it received and checks, through `verify`, that the script
 * played out as written.
 */
export type ScriptedModel = MockLanguageModelV3 & {
  /** Every call the model received, in order: prompt, tools, settings. */
  readonly calls: CallOptions[]
  /** How many scripted turns no call has played yet. */
  readonly remaining: number
  /**
   * Throws if the script went wrong: the first ScriptedToolUnknownError a call failed with (it
   * ends its turn early, so later turns go unused), else a ScriptedTurnsUnusedError listing
   * the turns no call played.
   */
  verify(): void
}

/**
 * An AI SDK language model that plays `turns`, one per call, and records every call. Use it to
 * unit-test agents without a network: `scriptedModel([[say.text("Hi")]])`.
 */
export function scriptedModel(turns: readonly Turn[], options: ScriptedModelOptions = {}): ScriptedModel {
  let next = 0
  const unknownCalls: ScriptedToolUnknownError[] = []
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
      const unknown = options.knownTools && unknownCall(played, call, next, options.knownTools)
      if (unknown) {
        unknownCalls.push(unknown)
        throw unknown
      }
      return { stream: play(played, call.abortSignal) }
    },
  })
  const verify = () => {
    if (unknownCalls[0]) throw unknownCalls[0]
    const unused = turns
      .slice(next)
      .map((turn, index) => ({ turn: next + index + 1, summary: summarizeTurn(turn) }))
    if (unused.length > 0) throw ScriptedTurnsUnusedError.of(unused, turns.length)
  }
  Object.defineProperties(model, {
    calls: { get: () => model.doStreamCalls },
    remaining: { get: () => Math.max(0, turns.length - next) },
    verify: { value: verify },
  })
  return model as ScriptedModel
}

/** The first scripted call of a tool that the call does not offer and the runtime does not know. */
function unknownCall(
  steps: readonly ScriptStep[],
  call: CallOptions,
  turn: number,
  knownTools: (name: string) => boolean,
): ScriptedToolUnknownError | undefined {
  const offered = (call.tools ?? []).map((tool) => tool.name).sort()
  for (const step of steps) {
    if (step.type !== "tool-call" || step.unavailable) continue
    if (!offered.includes(step.toolName) && !knownTools(step.toolName))
      return ScriptedToolUnknownError.of(step.toolName, turn, offered)
  }
  return undefined
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
