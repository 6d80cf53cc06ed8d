import type { LanguageModel, TextStreamPart, ToolSet } from "ai"
import { describe, expect, it } from "vitest"
import { createProviderStream } from "../../src/provider-call/provider-stream.js"
import { scriptedModel } from "../../src/testing/index.js"

type Read = IteratorResult<TextStreamPart<ToolSet>>

/** How long a read may take to end after the abort: generous, but the test fails instead of hanging. */
const BOUND_MS = 2_000

/** `read`, or a failure once BOUND_MS has passed without it. */
function bounded(read: Promise<Read>): Promise<Read> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the read did not end within ${BOUND_MS} ms`)), BOUND_MS)
  })
  return Promise.race([read, late]).finally(() => clearTimeout(timer))
}

/** A spec model whose one call answers after `answered`, ignoring its abort signal. */
function deaf(answered: Promise<{ stream: ReadableStream<unknown> }>): LanguageModel {
  return { ...scriptedModel([]), doStream: () => answered } as unknown as LanguageModel
}

/** A provider stream that sends a text's start and one delta, then nothing, and ignores cancel. */
function stalledAfterOneDelta(): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] })
      controller.enqueue({ type: "text-start", id: "t" })
      controller.enqueue({ type: "text-delta", id: "t", delta: "Half" })
    },
    pull: () => new Promise<void>(() => {}),
  })
}

describe("createProviderStream on abort", () => {
  it("ends a read in flight at once when the call's signal aborts, though the provider stalls and ignores it", async () => {
    const abort = new AbortController()
    const stream = createProviderStream()({
      model: deaf(Promise.resolve({ stream: stalledAfterOneDelta() })),
      request: { messages: [{ role: "user", content: "hi" }] },
      tools: {},
      abort: abort.signal,
    })[Symbol.asyncIterator]()
    const types: string[] = []
    for (let count = 0; count < 3; count++) types.push((await stream.next()).value!.type)
    expect(types).toEqual(["start-step", "text-start", "text-delta"])
    const pending = stream.next()
    abort.abort()
    expect(await bounded(pending)).toEqual({ done: true, value: undefined })
    expect(await stream.next()).toEqual({ done: true, value: undefined })
  })

  it("ends the first read at once when the signal aborts before the provider answered", async () => {
    const abort = new AbortController()
    let answer: (result: { stream: ReadableStream<unknown> }) => void = () => {}
    let cancelled = false
    const stream = createProviderStream()({
      model: deaf(new Promise((resolve) => (answer = resolve))),
      request: { messages: [{ role: "user", content: "hi" }] },
      tools: {},
      abort: abort.signal,
    })[Symbol.asyncIterator]()
    const pending = stream.next()
    abort.abort()
    expect(await bounded(pending)).toEqual({ done: true, value: undefined })
    // An answer that comes after all is not read: its request is cancelled.
    answer({
      stream: new ReadableStream({
        pull: (controller) => controller.enqueue({ type: "text-delta", id: "t", delta: "x" }),
        cancel: () => {
          cancelled = true
        },
      }),
    })
    expect(await stream.next()).toEqual({ done: true, value: undefined })
    await expect.poll(() => cancelled).toBe(true)
  })
})
