import { startTimeout } from "../util/timeout.js"

type Request = { id: string; sessionID: string }

export type Waiter<R extends Request, A> = {
  request: R
  resolve(answer: A): void
  reject(error: Error): void
}

export type WaitOptions = {
  /** Ends the wait with `onExpire` after this long; Infinity or none means no limit. */
  timeoutMs?: number | undefined
  /** Ends the wait with `onAbort` when aborted (the tool call was cancelled). */
  signal?: AbortSignal | undefined
  onExpire(): void
  onAbort(): void
}

/**
 * The in-memory side of requests waiting for a human: one promise per request, settled once,
 * with its timer and abort listener removed when it settles. A runtime owns one per service.
 */
export function createWaiters<R extends Request, A>() {
  const waiting = new Map<string, Waiter<R, A> & { cleanup(): void }>()

  return {
    /**
     * Registers a request and returns its answer promise and a signal that aborts once the
     * request is settled (for handlers that show a prompt and should withdraw it).
     */
    add(request: R, options: WaitOptions): { answer: Promise<A>; settled: AbortSignal } {
      const settled = new AbortController()
      const answer = new Promise<A>((resolve, reject) => {
        const stopTimer =
          options.timeoutMs === undefined ? undefined : startTimeout(options.timeoutMs, options.onExpire)
        const onAbort = options.onAbort
        options.signal?.addEventListener("abort", onAbort, { once: true })
        waiting.set(request.id, {
          request,
          resolve,
          reject,
          cleanup() {
            stopTimer?.()
            options.signal?.removeEventListener("abort", onAbort)
            settled.abort()
          },
        })
      })
      return { answer, settled: settled.signal }
    },

    /** Removes a request so that it can be settled exactly once; undefined if it is not waiting. */
    take(id: string): Waiter<R, A> | undefined {
      const waiter = waiting.get(id)
      if (!waiter) return undefined
      waiting.delete(id)
      waiter.cleanup()
      return waiter
    },

    has(id: string): boolean {
      return waiting.has(id)
    },

    get(id: string): R | undefined {
      return waiting.get(id)?.request
    },

    requests(): R[] {
      return [...waiting.values()].map((waiter) => waiter.request)
    },
  }
}
