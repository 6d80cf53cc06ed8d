import type { ModelMessage, TextStreamPart, ToolSet } from "ai"
import type { CallTelemetry } from "../telemetry/index.js"
import { runCalls } from "./run-calls.js"
import { createStepParts } from "./step-parts.js"
import type { SpecStreamResult } from "./types.js"

type Stream = TextStreamPart<ToolSet>
type Waiter = {
  resolve: (result: IteratorResult<Stream, undefined>) => void
  reject: (error: unknown) => void
}

/**
 * One step's spec stream as the AI SDK's stream parts, the way `streamText` emits them for a
 * single step (the mapping is step-parts.ts): the model's parts as they come, then our tool
 * calls run side by side once the model is done, their results as they settle, then
 * `finish-step`. One promise per part read, no web-stream stages of our own.
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
  let waiter: Waiter | undefined
  let reading = false
  let modelDone = false
  let ended = false
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
    if (head === queue.length) {
      queue.length = 0
      head = 0
    }
    return part
  }

  const deliver = () => {
    if (!waiter) return
    const current = waiter
    if (head < queue.length) {
      waiter = undefined
      current.resolve({ done: false, value: take() })
    } else if (failure) {
      waiter = undefined
      current.reject(failure.error)
    } else if (ended) {
      waiter = undefined
      current.resolve({ done: true, value: undefined })
    } else if (!modelDone) read()
  }

  const read = () => {
    if (reading) return
    reading = true
    reader.read().then(
      (chunk) => {
        reading = false
        if (chunk.done) modelFinished()
        else parts.onPart(chunk.value)
        deliver()
      },
      (error: unknown) => {
        reading = false
        modelDone = true
        fail(error)
        deliver()
      },
    )
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

  const iterator: AsyncIterableIterator<Stream> = {
    next: () => {
      if (head < queue.length) return Promise.resolve({ done: false, value: take() })
      if (failure) return Promise.reject(failure.error)
      if (ended) return Promise.resolve({ done: true, value: undefined })
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject }
        if (!modelDone) read()
      })
    },
    return: async () => {
      // The reader stops the provider's request; running tools end through their signal.
      if (!ended) {
        ended = true
        telemetry.fail(abort.reason ?? new Error("The step's stream was closed before it ended"))
      }
      queue.length = 0
      head = 0
      waiter?.resolve({ done: true, value: undefined })
      waiter = undefined
      await reader.cancel().catch(() => undefined)
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}
