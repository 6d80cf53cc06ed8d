import { AbortedError } from "../message/errors.js"
import { createAbortGroup } from "../util/abort-group.js"

/** A prompt before its message is stored: the signal its wait (the `chat.message` hook) ends on. */
export type IntakeWait = { signal: AbortSignal; end(): void }

/**
 * The prompts of each session that have not stored their message yet. No run exists for them,
 * so cancelling the run alone would leave them waiting (in a `chat.message` hook that never
 * settles) on an idle session; `cancel` ends their wait, and they store nothing.
 */
export function createIntakeWaits(closing: AbortSignal) {
  /** Each session's waiting prompts, with when each started waiting. */
  const waiting = new Map<string, Map<AbortController, number>>()
  const closed = createAbortGroup(closing)

  /**
   * Aborts on a cancel of the session, on the prompt's own `signal`, or when the runtime closes,
   * with the reason of whichever came first; `end` once the prompt stores its message or fails.
   */
  function enter(sessionID: string, signal?: AbortSignal): IntakeWait {
    const { controller, leave } = closed.join()
    const sessionWaits = waiting.get(sessionID) ?? new Map<AbortController, number>()
    sessionWaits.set(controller, Date.now())
    waiting.set(sessionID, sessionWaits)
    const unlink = signal ? [follow(controller, signal), leave] : [leave]
    return {
      signal: controller.signal,
      end() {
        for (const stop of unlink) stop()
        sessionWaits.delete(controller)
        if (sessionWaits.size === 0 && waiting.get(sessionID) === sessionWaits) waiting.delete(sessionID)
      },
    }
  }

  /** Ends the waits of the session's prompts that began by `sentAt`; false when none did. */
  function cancel(sessionID: string, sentAt = Number.POSITIVE_INFINITY): boolean {
    let cancelled = false
    for (const [controller, since] of waiting.get(sessionID) ?? []) {
      if (since > sentAt) continue
      cancelled = true
      controller.abort(
        new AbortedError({ message: "The prompt was cancelled before its message was stored" }),
      )
    }
    return cancelled
  }

  return { enter, cancel }
}

export type IntakeWaits = ReturnType<typeof createIntakeWaits>

/** Aborts `controller` when `source` aborts; returns how to stop following it. */
function follow(controller: AbortController, source: AbortSignal): () => void {
  if (source.aborted) {
    controller.abort(source.reason)
    return () => {}
  }
  const onAbort = () => controller.abort(source.reason)
  source.addEventListener("abort", onAbort, { once: true })
  return () => source.removeEventListener("abort", onAbort)
}
