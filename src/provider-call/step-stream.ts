import type { ModelMessage, TextStreamPart, ToolSet } from "ai"
import type { CallTelemetry } from "../telemetry/index.js"
import { runCalls } from "./run-calls.js"
import { callsToRun, createStepParts, finishStep, onPart, type StepParts } from "./step-parts.js"
import type { SpecStreamPart, SpecStreamResult } from "./types.js"

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
export function stepStream(input: StepStreamInput): AsyncIterableIterator<Stream> {
  const step = createStepRead(input)
  if (input.abort.aborted) void step.stop()
  else input.abort.addEventListener("abort", step.stop, { once: true })

  const iterator: AsyncIterableIterator<Stream> = {
    next: () => {
      try {
        const next = after(step)
        return next instanceof Promise ? next : Promise.resolve(next)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    return: async () => {
      // Running tools end through their signal.
      await step.stop()
      return DONE
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

type StepStreamInput = {
  result: SpecStreamResult
  tools: ToolSet
  abort: AbortSignal
  modelId: string
  /** The step's messages, handed to each tool as the AI SDK does. */
  messages: ModelMessage[]
  telemetry: CallTelemetry
}

type Chunk = Awaited<ReturnType<ReadableStreamDefaultReader<SpecStreamPart>["read"]>>

/** One step stream's state, passed to the functions below. */
type StepRead = {
  input: StepStreamInput
  reader: ReadableStreamDefaultReader<SpecStreamPart>
  parts: StepParts
  /** Parts mapped and not handed on yet, from `head`. */
  queue: Stream[]
  head: number
  /** Set while the step's tools run and the reader waits for the next of them to settle. */
  waiter: Waiter | undefined
  modelDone: boolean
  ended: boolean
  /** Aborted or closed: nothing more is read or handed on. */
  stopped: boolean
  failure: { error: unknown } | undefined
  /** The step's tool calls still running. */
  running: number
  // Made once per step, so that no read makes a closure.
  onChunk: (chunk: Chunk) => Read | Promise<Read>
  onReadError: (error: unknown) => Read | Promise<Read>
  stop: () => Promise<unknown>
}

function createStepRead(input: StepStreamInput): StepRead {
  const queue: Stream[] = []
  const step: StepRead = {
    input,
    reader: input.result.stream.getReader(),
    parts: createStepParts({
      result: input.result,
      tools: input.tools,
      modelId: input.modelId,
      telemetry: input.telemetry,
      push: (part) => queue.push(part),
    }),
    queue,
    head: 0,
    waiter: undefined,
    modelDone: false,
    ended: false,
    stopped: false,
    failure: undefined,
    running: 0,
    onChunk: (chunk) => onChunk(step, chunk),
    onReadError: (error) => onReadError(step, error),
    stop: () => stop(step),
  }
  return step
}

function take(step: StepRead): Stream {
  const { queue } = step
  const part = queue[step.head]!
  queue[step.head++] = undefined as unknown as Stream
  // Emptied in batches: shortening the array is a runtime call, a cost per delta if done each time.
  if (step.head === queue.length && step.head >= 64) {
    queue.length = 0
    step.head = 0
  }
  return part
}

/** The next read's result when it is known now; while the model streams, its next read. */
function after(step: StepRead): Read | Promise<Read> {
  if (step.head < step.queue.length) return { done: false, value: take(step) }
  if (step.ended) {
    // Nothing more to hand on: an abort from now on has nothing to stop.
    step.input.abort.removeEventListener("abort", step.stop)
    if (step.failure) throw step.failure.error
    return DONE
  }
  if (!step.modelDone) return step.reader.read().then(step.onChunk, step.onReadError)
  return new Promise((resolve, reject) => {
    step.waiter = { resolve, reject }
  })
}

function onChunk(step: StepRead, chunk: Chunk): Read | Promise<Read> {
  if (step.stopped) return DONE
  if (chunk.done) modelFinished(step)
  else onPart(step.parts, chunk.value)
  return after(step)
}

function onReadError(step: StepRead, error: unknown): Read | Promise<Read> {
  if (step.stopped) return DONE
  step.modelDone = true
  fail(step, error)
  return after(step)
}

/** Hands the waiting read what a tool's end made known. */
function deliver(step: StepRead): void {
  const current = step.waiter
  if (!current) return
  step.waiter = undefined
  try {
    const next = after(step)
    if (next instanceof Promise) next.then(current.resolve, current.reject)
    else current.resolve(next)
  } catch (error) {
    current.reject(error)
  }
}

function fail(step: StepRead, error: unknown): void {
  if (step.ended) return
  step.failure = { error }
  step.ended = true
  step.input.telemetry.fail(error)
}

function modelFinished(step: StepRead): void {
  step.modelDone = true
  const toRun = callsToRun(step.parts)
  if (toRun.length === 0) {
    endStep(step)
    return
  }
  step.running = toRun.length
  const { tools, abort, messages, telemetry } = step.input
  runCalls(toRun, { tools, abort, messages, telemetry }, (part) => {
    if (step.stopped) return
    step.queue.push(part)
    if (--step.running === 0) endStep(step)
    deliver(step)
  })
}

function endStep(step: StepRead): void {
  if (step.ended) return
  const finished = finishStep(step.parts)
  if (finished instanceof Error) {
    fail(step, finished)
    return
  }
  step.queue.push(finished)
  step.ended = true
  step.input.telemetry.end()
}

/** Ends the stream where it is: the read in flight ends with `done`, the provider's request stops. */
function stop(step: StepRead): Promise<unknown> {
  const { abort, telemetry } = step.input
  abort.removeEventListener("abort", step.stop)
  if (!step.stopped) {
    step.stopped = true
    step.modelDone = true
    if (!step.ended) {
      step.ended = true
      telemetry.fail(abort.reason ?? new Error("The step's stream was closed before it ended"))
    }
    step.failure = undefined
    step.queue.length = 0
    step.head = 0
    step.waiter?.resolve(DONE)
    step.waiter = undefined
  }
  // Cancelling the reader also ends its pending read, whether or not the provider listens.
  return step.reader.cancel().catch(() => undefined)
}
