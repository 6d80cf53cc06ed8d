import { endsOnAbort } from "./model-stream.js"

/** The model sent nothing for longer than the idle timeout while no tool was running. */
export class StreamStalled extends Error {}

type Read<T> = IteratorResult<T, undefined>

const DONE = Object.freeze({ done: true, value: undefined } as const)

/**
 * Reads the stream to its end, handing each part to `handle` and waiting for the promise it
 * returns, if any. When `call` aborts (the run's abort, passed on to it), the read in flight
 * ends at once: the SDK would otherwise wait for every running tool, and a tool or a provider
 * that ignores its signal would keep the session busy forever. A read that waits longer than
 * `idle.ms` while `idle.busy()` is false (no tool running: a tool may rightly wait an hour for
 * a permission) aborts `call` and fails with StreamStalled.
 *
 * A stream that ends its own read on abort (endsOnAbort) is read as it is; any other through a
 * race with the abort, a promise more per part. Nothing else per part: no generator, and one
 * watchdog timer for all reads, since anything slower lets the SDK's internal queue grow, and
 * reading from a long queue gets slower and slower.
 */
export async function readParts<T>(
  stream: AsyncIterable<T>,
  call: AbortController,
  options: {
    idle: { ms: number; busy: () => boolean }
    /** Gets each part and the time it arrived (`Date.now()`). */
    handle: (part: T, receivedAt: number) => Promise<unknown> | undefined
  },
): Promise<void> {
  const { idle, handle } = options
  const iterator = stream[Symbol.asyncIterator]()
  const reads = endsOnAbort in iterator ? undefined : racedReads(iterator, call.signal)
  const read = reads?.read ?? (() => iterator.next())
  // While a read waits; false while `handle` has the part, which is not the model's time.
  let reading = false
  let readStart = Date.now()
  let stalled: StreamStalled | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const watch = (delay: number) => {
    timer = setTimeout(() => {
      const waited = Date.now() - readStart
      if (!reading || idle.busy()) {
        readStart = Date.now()
        watch(idle.ms)
      } else if (waited >= idle.ms) {
        stalled = new StreamStalled()
        call.abort(stalled)
      } else watch(idle.ms - waited)
    }, delay)
  }
  watch(idle.ms)
  try {
    for (;;) {
      reading = true
      const next = await read()
      reading = false
      if (stalled) throw stalled
      if (next.done) return
      // Also the next read's start when the part is handled synchronously, which no timer sees.
      const receivedAt = Date.now()
      readStart = receivedAt
      const pending = handle(next.value, receivedAt)
      if (pending) {
        await pending
        readStart = Date.now()
      }
    }
  } finally {
    clearTimeout(timer)
    reads?.close()
    void iterator.return?.()?.catch(() => undefined)
  }
}

/** Reads of `iterator` that end with `done` as soon as `signal` aborts, whatever the iterator does. */
function racedReads<T>(iterator: AsyncIterator<T>, signal: AbortSignal) {
  let settle: ((result: Read<T>) => void) | undefined
  const onAbort = () => {
    settle?.(DONE)
    void iterator.return?.()?.catch(() => undefined)
  }
  signal.addEventListener("abort", onAbort, { once: true })
  return {
    read: (): Promise<Read<T>> => {
      if (signal.aborted) return Promise.resolve(DONE)
      return new Promise((resolve, reject) => {
        settle = resolve
        iterator.next().then(resolve, reject)
      })
    },
    close: () => signal.removeEventListener("abort", onAbort),
  }
}
