import type { z } from "zod"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import type { AskDeps, Forwarded } from "./deps.js"
import { createPendingStore } from "./pending-store.js"
import { createWaiters, type Waiter } from "./waiters.js"

type Request = { id: string; sessionID: string; tool?: { messageID: string; callID: string } | undefined }

/** The errors a request ends with when no answer comes: each service's `RejectedError`. */
export type Unanswered = {
  timedOut(timeoutMs: number): Error
  aborted(): Error
}

/** How a waiting caller is settled: with its answer, or with an error. */
export type Outcome<A> = { answer: A } | { error: Error }

/**
 * What the permission and question services share about their requests: the callers waiting in
 * this runtime (`waiters`), the requests kept in storage for a process that restarts (`pending`),
 * and the answers recorded for another process. `area` names the storage keys; `what` names a
 * request in a `NotFoundError`.
 */
export function createAskRequests<R extends Request, A, Recorded>(
  deps: AskDeps,
  options: {
    area: string
    what: string
    schema: z.ZodType<R>
    recordSchema: z.ZodType<Recorded>
    unanswered: Unanswered
  },
) {
  const waiters = createWaiters<R, A>()
  const pending = createPendingStore(deps.storage, options.area, options.schema, options.recordSchema)

  /**
   * Waits for the answer to a stored request. A timeout or the caller's abort ends it through
   * `end`; the caller is settled even when removing the stored request fails (it then stays listed).
   */
  function wait(
    request: R,
    input: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined },
    end: (error: Error) => Promise<unknown>,
  ): { answer: Promise<A>; settled: AbortSignal } {
    const timeoutMs = input.timeoutMs ?? deps.askTimeoutMs
    return waiters.add(request, {
      timeoutMs,
      signal: input.signal,
      onExpire: () => end(options.unanswered.timedOut(timeoutMs ?? 0)).catch(ignore),
      onAbort: () => end(options.unanswered.aborted()).catch(ignore),
    })
  }

  /**
   * Ends a request: removes its stored copy, then publishes and settles its waiting caller, if
   * any, even when the removal fails (the request then stays listed).
   */
  async function end(request: R, outcome: Outcome<A>, publish: () => void): Promise<void> {
    const waiter = waiters.take(request.id)
    try {
      await pending.remove(request.id)
    } finally {
      publish()
      if (waiter) settleWaiter(waiter, outcome)
    }
  }

  /** A waiting request of this runtime, or one stored by an earlier process. */
  async function find(requestID: string): Promise<R> {
    const request = waiters.get(requestID) ?? (await pending.get(requestID))
    if (!request) throw NotFoundError.of(options.what, requestID)
    return request
  }

  /**
   * Sends an answer to the process that runs the session, unless this one waits for it or no
   * other process may: true when it went there. Recorded first: should that process stop before
   * acting on it, the session's next run acts on it rather than answering "no".
   */
  async function forwarded(request: R, message: Forwarded, answer: Recorded): Promise<boolean> {
    if (waiters.has(request.id) || !deps.forwardElsewhere) return false
    await pending.record(request, answer)
    return deps.forwardElsewhere(message)
  }

  /** A tool's request that no caller of this runtime waits for: the process that asked stopped. */
  function isOrphaned(request: R): boolean {
    return !waiters.has(request.id) && request.tool !== undefined
  }

  /** The session's stored requests that nobody in this runtime waits for. */
  async function storedOf(sessionID: string): Promise<R[]> {
    return (await pending.list()).filter(
      (request) => request.sessionID === sessionID && !waiters.has(request.id),
    )
  }

  return {
    waiters,
    pending,
    wait,
    end,
    find,
    forwarded,
    isOrphaned,
    storedOf,

    async list(): Promise<R[]> {
      deps.assertOpen()
      return pending.list()
    },

    /** Tool calls of this session whose request an earlier process stored and nobody answered yet. */
    async storedCalls(sessionID: string): Promise<string[]> {
      return (await storedOf(sessionID)).flatMap((request) => (request.tool ? [request.tool.callID] : []))
    },

    /** Whether answers recorded for the session's stored requests wait for a process to act on them. */
    async hasRecorded(sessionID: string): Promise<boolean> {
      return (await pending.recorded(sessionID)).length > 0
    },

    /**
     * Lets go of every waiting request without answering it: it stays stored, as after a crash,
     * for the next process to resume when answered. The callers waiting here get
     * RuntimeClosedError.
     */
    detach(): void {
      for (const request of waiters.requests())
        waiters.take(request.id)?.reject(new RuntimeClosedError({ message: "The runtime is closed" }))
    },

    /** The sessions of the requests waiting in this runtime. */
    waitingSessions(): string[] {
      return waiters.requests().map((request) => request.sessionID)
    },
  }
}

function settleWaiter<R extends Request, A>(waiter: Waiter<R, A>, outcome: Outcome<A>): void {
  if ("error" in outcome) waiter.reject(outcome.error)
  else waiter.resolve(outcome.answer)
}

export function ignore(): void {}
