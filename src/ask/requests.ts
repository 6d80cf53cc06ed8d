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
/** The state of one service's requests, passed to the functions below. */
type Requests<R extends Request, A, Recorded> = {
  deps: AskDeps
  options: RequestOptions<R, Recorded>
  waiters: ReturnType<typeof createWaiters<R, A>>
  pending: ReturnType<typeof createPendingStore<R, Recorded>>
}

type RequestOptions<R extends Request, Recorded> = {
  area: string
  what: string
  schema: z.ZodType<R>
  recordSchema: z.ZodType<Recorded>
  unanswered: Unanswered
}

/**
 * What the permission and question services share about their requests: the callers waiting in
 * this runtime (`waiters`), the requests kept in storage for a process that restarts (`pending`),
 * and the answers recorded for another process. `area` names the storage keys; `what` names a
 * request in a `NotFoundError`.
 */
export function createAskRequests<R extends Request, A, Recorded>(
  deps: AskDeps,
  options: RequestOptions<R, Recorded>,
) {
  const waiters = createWaiters<R, A>()
  const pending = createPendingStore(deps.storage, options.area, options.schema, options.recordSchema)
  const self: Requests<R, A, Recorded> = { deps, options, waiters, pending }
  const storedOf = (sessionID: string) => storedRequests(self, sessionID)

  return {
    waiters,
    pending,
    wait: (request: R, input: WaitInput, end: (error: Error) => Promise<unknown>) =>
      wait(self, request, input, end),
    end: (request: R, outcome: Outcome<A>, publish: () => void) => end(self, request, outcome, publish),
    find: (requestID: string) => find(self, requestID),
    forwarded: (request: R, message: Forwarded, answer: Recorded) =>
      forwarded(self, request, message, answer),
    /** A tool's request that no caller of this runtime waits for: the process that asked stopped. */
    isOrphaned: (request: R): boolean => !waiters.has(request.id) && request.tool !== undefined,
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

type WaitInput = { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }

/**
 * Waits for the answer to a stored request. A timeout or the caller's abort ends it through
 * `end`; the caller is settled even when removing the stored request fails (it then stays listed).
 */
function wait<R extends Request, A, Recorded>(
  self: Requests<R, A, Recorded>,
  request: R,
  input: WaitInput,
  end: (error: Error) => Promise<unknown>,
): { answer: Promise<A>; settled: AbortSignal } {
  const { unanswered } = self.options
  const timeoutMs = input.timeoutMs ?? self.deps.askTimeoutMs
  return self.waiters.add(request, {
    timeoutMs,
    signal: input.signal,
    onExpire: () => end(unanswered.timedOut(timeoutMs ?? 0)).catch(ignore),
    onAbort: () => end(unanswered.aborted()).catch(ignore),
  })
}

/**
 * Ends a request: removes its stored copy, then publishes and settles its waiting caller, if
 * any, even when the removal fails (the request then stays listed).
 */
async function end<R extends Request, A, Recorded>(
  self: Requests<R, A, Recorded>,
  request: R,
  outcome: Outcome<A>,
  publish: () => void,
): Promise<void> {
  const waiter = self.waiters.take(request.id)
  try {
    await self.pending.remove(request.id)
  } finally {
    publish()
    if (waiter) settleWaiter(waiter, outcome)
  }
}

/** A waiting request of this runtime, or one stored by an earlier process. */
async function find<R extends Request, A, Recorded>(
  self: Requests<R, A, Recorded>,
  requestID: string,
): Promise<R> {
  const request = self.waiters.get(requestID) ?? (await self.pending.get(requestID))
  if (!request) throw NotFoundError.of(self.options.what, requestID)
  return request
}

/**
 * Sends an answer to the process that runs the session, unless this one waits for it or no
 * other process may: true when it went there. Recorded first: should that process stop before
 * acting on it, the session's next run acts on it rather than answering "no".
 */
async function forwarded<R extends Request, A, Recorded>(
  self: Requests<R, A, Recorded>,
  request: R,
  message: Forwarded,
  answer: Recorded,
): Promise<boolean> {
  if (self.waiters.has(request.id) || !self.deps.forwardElsewhere) return false
  await self.pending.record(request, answer)
  return self.deps.forwardElsewhere(message)
}

/** The session's stored requests that nobody in this runtime waits for. */
async function storedRequests<R extends Request, A, Recorded>(
  self: Requests<R, A, Recorded>,
  sessionID: string,
): Promise<R[]> {
  return (await self.pending.list()).filter(
    (request) => request.sessionID === sessionID && !self.waiters.has(request.id),
  )
}

function settleWaiter<R extends Request, A>(waiter: Waiter<R, A>, outcome: Outcome<A>): void {
  if ("error" in outcome) waiter.reject(outcome.error)
  else waiter.resolve(outcome.answer)
}

export function ignore(): void {}
