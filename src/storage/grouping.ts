import { StorageError } from "./storage-error.js"

/*
 * The words of this file, used across storage/: a *batch* is one caller's `write()` array (the
 * port says so); a *group* is calls of one kind (write batches, reads, published messages) that
 * an adapter sends together, as one transaction or statement. A call of a group that goes by
 * itself goes *alone*.
 */

/** A call waiting for its group: how it is settled. */
export type Pending<R = void> = { resolve: (value: R) => void; reject: (error: unknown) => void }

/**
 * When the waiting calls go.
 * - "turn": once the microtasks queued with the first call have run; once calls came several
 *   at a time, at the end of the turn of the event loop, which takes in more (SQLite, whose
 *   transactions do not yield: nothing is ever in flight for long).
 * - "behind": at once (after the microtasks) while nothing is in flight; else behind the group
 *   in flight, until it has run `stallMs`: what one slow statement can delay the others by
 *   (PostgreSQL's puts and reads, where a round trip is most of a small call's cost).
 * - "spaced": one group at a time, each `everyMs` after the one before went out, or at the end
 *   of the turn when that is past (the PostgreSQL outbox: each group wakes every listener).
 */
export type Flush =
  | { when: "turn" }
  | { when: "behind"; stallMs: number }
  | { when: "spaced"; everyMs: number }

export type GroupingOptions<C extends Pending<never>> = {
  flush: Flush
  /** How many waiting calls from the front go together (at least one): size caps, no row or key twice. Default all. */
  take?: (waiting: readonly C[]) => number
  /**
   * Sends a group and settles its calls: a promise of when the group is done, or undefined when
   * it settled them without yielding. Should it throw or reject, every call of the group not
   * settled yet fails with its error.
   */
  send: (group: C[]) => Promise<void> | undefined
}

/** The side of a grouping its scheduler drives. */
type Core = {
  waiting: () => number
  /** Sends the next group; resolves when it is done. */
  go: () => Promise<void>
}

type Scheduler = {
  /** A call was added to the waiting ones. */
  added: () => void
  /** Sends every waiting call now; resolves when the groups sent now are done. */
  sendAll: () => Promise<void>
}

/**
 * Calls of one kind waiting to be sent together: `add` queues a call, and `flush` says when the
 * waiting ones go, `take` how many go as one group, `send` how.
 */
export function createGrouping<C extends Pending<never>>(options: GroupingOptions<C>) {
  const { flush, take = (waiting) => waiting.length, send } = options
  const waiting: C[] = []
  const idle: (() => void)[] = []
  let inFlight = 0

  const done = () => {
    inFlight--
    // The scheduler sends nothing more once nothing waits, so the grouping is idle.
    if (inFlight === 0 && waiting.length === 0 && idle.length > 0)
      for (const resolve of idle.splice(0)) resolve()
  }
  const core: Core = {
    waiting: () => waiting.length,
    go() {
      const group = waiting.splice(0, Math.max(1, take(waiting)))
      inFlight++
      const failed = (error: unknown) => {
        for (const call of group) call.reject(error)
        done()
      }
      try {
        const sent = send(group)
        // A send that settled its calls without yielding (SQLite's lone batch) costs no promise.
        if (sent) return sent.then(done, failed)
        done()
      } catch (error) {
        failed(error)
      }
      return Promise.resolve()
    },
  }
  const scheduler = schedulerOf(flush, core)

  return {
    add(call: C): void {
      waiting.push(call)
      scheduler.added()
    },
    /** Sends every waiting call now, without waiting for the group in flight or the flush. */
    sendAll: scheduler.sendAll,
    /** Resolves once no call waits or is in flight. */
    drained(): Promise<void> {
      if (inFlight === 0 && waiting.length === 0) return Promise.resolve()
      return new Promise((resolve) => idle.push(resolve))
    },
  }
}

function schedulerOf(flush: Flush, core: Core): Scheduler {
  switch (flush.when) {
    case "turn":
      return turnScheduler(core)
    case "behind":
      return behindScheduler(core, flush.stallMs)
    case "spaced":
      return spacedScheduler(core, flush.everyMs)
  }
}

/** Sends everything waiting, a group after another, without waiting for any. */
function sendWaiting(core: Core): Promise<void> {
  const sent: Promise<void>[] = []
  while (core.waiting() > 0) sent.push(core.go())
  return Promise.all(sent).then(() => undefined)
}

function turnScheduler(core: Core): Scheduler {
  // Whether calls came several at a time last: then a group waits for the end of the turn to
  // take in the others'; a caller alone goes once its microtasks have run, without waiting for
  // the end of the turn, which a lone session would feel on every step (bench/README.md).
  let several = false
  const flush = () => {
    several = core.waiting() > 1
    while (core.waiting() > 0) void core.go()
  }
  return {
    added() {
      if (core.waiting() === 1) (several ? setImmediate : queueMicrotask)(flush)
    },
    sendAll() {
      if (core.waiting() > 0) several = core.waiting() > 1
      return sendWaiting(core)
    },
  }
}

function behindScheduler(core: Core, stallMs: number): Scheduler {
  // The group the waiting calls wait for: the latest sent, until it ends or stalls.
  let current: { sentAt: number } | undefined
  let scheduled = false
  let stallTimer: ReturnType<typeof setTimeout> | undefined

  function go(): void {
    const group = { sentAt: Date.now() }
    current = group
    void core.go().finally(() => {
      if (current === group) {
        current = undefined
        clearTimeout(stallTimer)
        stallTimer = undefined
      }
      flush()
    })
  }

  function flush(): void {
    scheduled = false
    if (current) watchStall()
    else if (core.waiting() > 0) go()
  }

  /** Once the current group has run for stallMs, the calls behind it go. */
  function watchStall(): void {
    if (stallTimer !== undefined || core.waiting() === 0) return
    const group = current!
    stallTimer = setTimeout(
      () => {
        stallTimer = undefined
        if (current === group) current = undefined
        flush()
      },
      Math.max(0, stallMs - (Date.now() - group.sentAt)),
    )
  }

  return {
    added() {
      if (current) watchStall()
      else if (!scheduled) {
        scheduled = true
        queueMicrotask(flush)
      }
    },
    sendAll() {
      current = undefined
      clearTimeout(stallTimer)
      stallTimer = undefined
      return sendWaiting(core)
    },
  }
}

function spacedScheduler(core: Core, everyMs: number): Scheduler {
  let lastSent = Number.NEGATIVE_INFINITY
  let timer: { cancel: () => void } | undefined
  let sending: Promise<void> | undefined

  function schedule(): void {
    if (timer || sending || core.waiting() === 0) return
    const wait = lastSent + everyMs - performance.now()
    if (wait > 0) {
      const id = setTimeout(flush, wait)
      timer = { cancel: () => clearTimeout(id) }
    } else {
      const id = setImmediate(flush)
      timer = { cancel: () => clearImmediate(id) }
    }
  }

  function flush(): Promise<void> {
    timer = undefined
    if (core.waiting() === 0) return Promise.resolve()
    lastSent = performance.now()
    const sent = core.go().finally(() => {
      sending = undefined
      schedule()
    })
    sending = sent
    return sent
  }

  return {
    added: schedule,
    /** The next group goes without waiting for its time (once the one in flight is done). */
    async sendAll() {
      while (core.waiting() > 0) {
        if (sending) await sending
        else {
          timer?.cancel()
          await flush()
        }
      }
    },
  }
}

/** How a group's calls go: together, or one alone, and what a call answers from the group's outcome. */
export type GroupSend<C extends Pending<R>, R, M> = {
  /** The calls as one transaction or statement. */
  merged: (calls: readonly C[]) => M | Promise<M>
  /** A call by itself, as it would go without grouping. */
  alone: (call: C) => R | Promise<R>
  /** A call's answer from what `merged` returned (it may throw for that call alone). */
  answer: (call: C, outcome: M) => R | Promise<R>
}

/**
 * Sends a group and settles each of its calls as it would have been settled alone. A group of
 * one goes alone. When the merged call fails on one call's account (a missing session, a
 * constraint, a value the statement refused), its calls go again alone, one after another in
 * their order, so that each gets its own outcome. A fault (a StorageError: a lock held past the
 * retries, the connection lost, the storage closed) fails them all at once, as it would each.
 */
export function sendGroup<C extends Pending<R>, R, M>(
  calls: readonly C[],
  how: GroupSend<C, R, M>,
): Promise<void> | undefined {
  // A call alone (the common case of a lone session) costs no promise of its own.
  return calls.length === 1 ? settle(calls[0]!, how.alone) : sendMerged(calls, how)
}

async function sendMerged<C extends Pending<R>, R, M>(calls: readonly C[], how: GroupSend<C, R, M>) {
  let outcome: M
  try {
    outcome = await how.merged(calls)
  } catch (error) {
    if (StorageError.isInstance(error)) for (const call of calls) call.reject(error)
    else for (const call of calls) await settle(call, how.alone)
    return
  }
  const answering: Promise<void>[] = []
  for (const call of calls) {
    const answered = settle(call, how.answer, outcome)
    if (answered) answering.push(answered)
  }
  await Promise.all(answering)
}

/** Settles `call` with what `answer` gives it: a value or error at once, or a promise's outcome. */
function settle<C extends Pending<R>, R, A extends unknown[]>(
  call: C,
  answer: (call: C, ...rest: A) => R | Promise<R>,
  ...rest: A
): Promise<void> | undefined {
  try {
    const value = answer(call, ...rest)
    if (value instanceof Promise) return value.then(call.resolve, call.reject)
    call.resolve(value)
  } catch (error) {
    call.reject(error)
  }
  return undefined
}
