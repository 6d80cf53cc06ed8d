/** The model sent nothing for longer than the idle timeout while no tool was running. */
export class StreamStalled extends Error {}

/**
 * Reads the stream until it ends or `signal` aborts. On abort the read in flight ends at once:
 * the SDK would otherwise wait for every running tool, and a tool that ignores its signal would
 * keep the session busy forever. A read that waits longer than `idle.ms` while `idle.busy()` is
 * false (no tool running: a tool may rightly wait an hour for a permission) fails with
 * StreamStalled. One promise per read, no generator and no race: anything slower lets the SDK's
 * internal queue grow, and reading from a long queue gets slower and slower. For the same reason
 * one watchdog timer serves all reads: a timer per read costs more than the read.
 */
export function untilAborted<T>(
  stream: AsyncIterable<T>,
  signal: AbortSignal,
  idle: { ms: number; busy: () => boolean },
) {
  const iterator = stream[Symbol.asyncIterator]()
  let settle: ((result: IteratorResult<T, undefined>) => void) | undefined
  // The read in flight, which a stall fails; undefined while the caller handles a part.
  let stall: ((error: Error) => void) | undefined
  let lastActivity = Date.now()
  let timer: ReturnType<typeof setTimeout> | undefined

  const watch = (delay: number) => {
    timer = setTimeout(() => {
      const waited = Date.now() - lastActivity
      if (stall === undefined || idle.busy()) {
        lastActivity = Date.now()
        watch(idle.ms)
      } else if (waited >= idle.ms) stall(new StreamStalled())
      else watch(idle.ms - waited)
    }, delay)
  }
  const onAbort = () => {
    clearTimeout(timer)
    settle?.({ done: true, value: undefined })
    void iterator.return?.()?.catch(() => undefined)
  }
  signal.addEventListener("abort", onAbort, { once: true })
  watch(idle.ms)
  return {
    next: () =>
      new Promise<IteratorResult<T, undefined>>((resolve, reject) => {
        if (signal.aborted) return resolve({ done: true, value: undefined })
        settle = resolve
        stall = reject
        lastActivity = Date.now()
        iterator.next().then(
          (result) => {
            stall = undefined
            lastActivity = Date.now()
            resolve(result)
          },
          (error: unknown) => {
            stall = undefined
            reject(error)
          },
        )
      }),
    close: () => {
      clearTimeout(timer)
      signal.removeEventListener("abort", onAbort)
      void iterator.return?.()?.catch(() => undefined)
    },
  }
}
