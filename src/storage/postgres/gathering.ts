/**
 * How long a statement may run before the calls waiting for it go without it: what one slow
 * statement (a lock, a large row, a long listing) can delay the other sessions' calls by.
 */
export const STALL_MS = 20

/**
 * Calls of one kind that go to PostgreSQL together. Each statement is a round trip, and with many
 * sessions in one process most of a small call's cost is its round trip. So while a statement of
 * such calls is on its way, the calls that come meanwhile wait for it and then go as one; a call
 * that comes while none is on its way goes at once (after the microtasks queued with it, which
 * may add more). A statement that has run for STALL_MS no longer holds back the calls behind it.
 *
 * `send` takes the calls it sends from the front of `waiting` (at least one), synchronously,
 * and settles them itself; its promise says when its statement is done.
 */
export function createGathering<T>(send: (waiting: T[]) => Promise<void>) {
  const waiting: T[] = []
  // The statement the waiting calls wait for: the latest sent, until it ends or stalls.
  let current: { sentAt: number } | undefined
  let inFlight = 0
  let scheduled = false
  let stallTimer: ReturnType<typeof setTimeout> | undefined
  const idle: (() => void)[] = []

  function go(): void {
    const statement = { sentAt: Date.now() }
    current = statement
    inFlight++
    void send(waiting).finally(() => {
      inFlight--
      if (current === statement) {
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
    else if (waiting.length > 0) go()
    else if (inFlight === 0) for (const done of idle.splice(0)) done()
  }

  /** Once the current statement has run for STALL_MS, the calls behind it go. */
  function watchStall(): void {
    if (stallTimer !== undefined || waiting.length === 0) return
    const statement = current!
    stallTimer = setTimeout(
      () => {
        stallTimer = undefined
        if (current === statement) current = undefined
        flush()
      },
      Math.max(0, STALL_MS - (Date.now() - statement.sentAt)),
    )
  }

  return {
    add(call: T): void {
      waiting.push(call)
      if (current) watchStall()
      else if (!scheduled) {
        scheduled = true
        queueMicrotask(flush)
      }
    },
    /** Sends every waiting call now, without waiting for the statement on its way. */
    sendAll(): void {
      current = undefined
      clearTimeout(stallTimer)
      stallTimer = undefined
      while (waiting.length > 0) go()
    },
    /** Resolves once no call waits or is on its way. */
    drained(): Promise<void> {
      if (inFlight === 0 && !scheduled && waiting.length === 0) return Promise.resolve()
      return new Promise((resolve) => idle.push(resolve))
    },
  }
}
