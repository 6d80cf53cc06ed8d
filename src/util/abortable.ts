/**
 * Waits for `work` unless `signal` aborts first, then rejects with the signal's reason. The work
 * itself goes on (a promise cannot be cancelled from outside): it is given the same signal.
 */
export function abortable<T>(work: T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  // Nothing to wait for (an absent or synchronous hook): no listener, as many calls run at once.
  if (!isPromiseLike(work)) return Promise.resolve(work)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener("abort", onAbort, { once: true })
    Promise.resolve(work).then(
      (value) => {
        signal.removeEventListener("abort", onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort)
        reject(error)
      },
    )
  })
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function"
}
