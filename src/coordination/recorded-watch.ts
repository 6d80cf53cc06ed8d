import type { Coordinator } from "./port.js"

/** The first pause between two looks at a watched session; pauses double up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 25
const MAX_PAUSE_MS = 250

/** The answers recorded for a session's stored requests (see the pending store's `record`). */
export type RecordedAnswers = {
  /** Whether some still wait to be acted on: no process has acted on them yet. */
  waiting(sessionID: string): Promise<boolean>
  /** Acts on them in this process, which holds the session's lease meanwhile. */
  actOn(sessionID: string): Promise<void>
}

/**
 * Answers sent to the process that held a session's lease, watched until someone acts on them.
 * A live owner does within moments; one that died before it could, never: once its lease is free
 * (expired, or given up), this process takes it and acts on them itself, so that a reply resumes
 * the turn without anyone calling `loop()`. Each look is a read of the recorded answers and a
 * claim that does not wait.
 */
export function createRecordedWatch(coordinator: Coordinator, answers: RecordedAnswers) {
  const watched = new Set<string>()
  const closing = new AbortController()

  async function watch(sessionID: string): Promise<void> {
    for (let round = 0; ; round++) {
      await pause(Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** round), closing.signal)
      if (closing.signal.aborted || !(await answers.waiting(sessionID))) return
      const lease = await coordinator.claim(sessionID, { wait: false })
      if (!lease) continue
      try {
        // Looked at again under the lease: no other process acts on them meanwhile.
        if (!closing.signal.aborted && (await answers.waiting(sessionID))) await answers.actOn(sessionID)
      } finally {
        await lease.release()
      }
      return
    }
  }

  return {
    /** Watches the session's recorded answers, unless it is watched already. */
    add(sessionID: string): void {
      if (watched.has(sessionID) || closing.signal.aborted) return
      watched.add(sessionID)
      // A failure (storage closed, the runtime closing) ends the watch: the answers stay
      // recorded for the session's next run.
      void watch(sessionID)
        .catch(() => undefined)
        .finally(() => watched.delete(sessionID))
    },
    /** Ends every watch at its next look. */
    close(): void {
      closing.abort()
    },
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    // A watch never keeps the process alive: what it watches stays recorded for the next run.
    timer.unref()
    signal.addEventListener("abort", done, { once: true })
  })
}
