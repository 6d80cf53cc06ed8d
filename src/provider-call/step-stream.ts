import type { ModelMessage, TextStreamPart, ToolSet } from "ai"
import type { CallTelemetry } from "../telemetry/index.js"
import { runCalls } from "./run-calls.js"
import { createStepParts } from "./step-parts.js"
import type { SpecStreamResult } from "./types.js"

type Stream = TextStreamPart<ToolSet>
type Read = IteratorResult<Stream, undefined>
type Waiter = { resolve: (result: Read) => void; reject: (error: unknown) => void }

const DONE: Read = Object.freeze({ done: true, value: undefined })

/**
 * One step's spec stream as the AI SDK's stream parts, the way `streamText` emits them for a
 * single step (the mapping is step-parts.ts): the model's parts as they come, then our tool
 * calls run side by side once the model is done, their results as they settle, then
 * `finish-step`. When `abort` aborts, the stream ends at once (the read in flight ends with
 * `done`, the provider's stream is cancelled), whatever the provider does.
 *
 * A part costs one promise over the provider's own read: `next()` hands on the reader's read,
 * mapped synchronously; abort is one listener that cancels the reader, which ends its pending
 * read, rather than a race around every read. Reading from the provider's queue a promise more
 * slowly per part is measurable per delta.
 */
export function stepStream(input: {
  result: SpecStreamResult
  tools: ToolSet
  abort: AbortSignal
  modelId: string
  /** The step's messages, handed to each tool as the AI SDK does. */
  messages: ModelMessage[]
  telemetry: CallTelemetry
}): AsyncIterableIterator<Stream> {
  const { result, tools, abort, telemetry } = input
  const reader = result.stream.getReader()
  const queue: Stream[] = []
  let head = 0
  // Set while the step's tools run and the reader waits for the next of them to settle.
  let waiter: Waiter | undefined
  let modelDone = false
  let ended = false
  // Aborted or closed: nothing more is read or handed on.
  let stopped = false
  let failure: { error: unknown } | undefined

  let running = 0
  const parts = createStepParts({
    result,
    tools,
    modelId: input.modelId,
    telemetry,
    push: (part) => queue.push(part),
  })

  const take = (): Stream => {
    const part = queue[head]!
    queue[head++] = undefined as unknown as Stream
    // Emptied in batches: shortening the array is a runtime call, a cost per delta if done each time.
    if (head === queue.length && head >= 64) {
      queue.length = 0
      head = 0
    }
    return part
  }

  /** The next read's result when it is known now; while the model streams, its next read. */
  const after = (): Read | Promise<Read> => {
    if (head < queue.length) return { done: false, value: take() }
    if (ended) {
      // Nothing more to hand on: an abort from now on has nothing to stop.
      abort.removeEventListener("abort", stop)
      if (failure) throw failure.error
      return DONE
    }
    if (!modelDone) return reader.read().then(onChunk, onReadError)
    return new Promise((resolve, reject) => {
      waiter = { resolve, reject }
    })
  }

  const onChunk = (chunk: Awaited<ReturnType<typeof reader.read>>) => {
    if (stopped) return DONE
    if (chunk.done) modelFinished()
    else parts.onPart(chunk.value)
    return after()
  }

  const onReadError = (error: unknown) => {
    if (stopped) return DONE
    modelDone = true
    fail(error)
    return after()
  }

  /** Hands the waiting read what a tool's end made known. */
  const deliver = () => {
    const current = waiter
    if (!current) return
    waiter = undefined
    try {
      const next = after()
      if (next instanceof Promise) next.then(current.resolve, current.reject)
      else current.resolve(next)
    } catch (error) {
      current.reject(error)
    }
  }

  const fail = (error: unknown) => {
    if (ended) return
    failure = { error }
    ended = true
    telemetry.fail(error)
  }

  const modelFinished = () => {
    modelDone = true
    const toRun = parts.callsToRun()
    if (toRun.length === 0) return endStep()
    running = toRun.length
    runCalls(toRun, { tools, abort, messages: input.messages, telemetry }, (part) => {
      if (stopped) return
      queue.push(part)
      if (--running === 0) endStep()
      deliver()
    })
  }

  const endStep = () => {
    if (ended) return
    const finished = parts.finishStep()
    if (finished instanceof Error) return fail(finished)
    queue.push(finished)
    ended = true
    telemetry.end()
  }

  /** Ends the stream where it is: the read in flight ends with `done`, the provider's request stops. */
  const stop = (): Promise<unknown> => {
    abort.removeEventListener("abort", stop)
    if (!stopped) {
      stopped = true
      modelDone = true
      if (!ended) {
        ended = true
        telemetry.fail(abort.reason ?? new Error("The step's stream was closed before it ended"))
      }
      failure = undefined
      queue.length = 0
      head = 0
      waiter?.resolve(DONE)
      waiter = undefined
    }
    // Cancelling the reader also ends its pending read, whether or not the provider listens.
    return reader.cancel().catch(() => undefined)
  }
  if (abort.aborted) void stop()
  else abort.addEventListener("abort", stop, { once: true })

  const iterator: AsyncIterableIterator<Stream> = {
    next: () => {
      try {
        const next = after()
        return next instanceof Promise ? next : Promise.resolve(next)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    return: async () => {
      // Running tools end through their signal.
      await stop()
      return DONE
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}
