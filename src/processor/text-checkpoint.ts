import type { ReasoningPart, TextPart } from "../message/part.js"

type Growing = TextPart | ReasoningPart

/**
 * When a growing text or reasoning part is written. Deltas are not written (principle 5), so a
 * crash would lose a part's whole streamed text: at most once per interval the text so far is
 * written, on the delta that finds the interval over, or by a timer when no further delta comes
 * (a model that pauses, then the process dies). The loss is bounded to the last interval, and
 * the writes grow with time, not with the number of deltas.
 */
export function createTextCheckpoints(options: { intervalMs: number; write: (part: Growing) => unknown }) {
  const { intervalMs, write } = options
  const written = new Map<string, number>()
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const cancel = (partID: string) => {
    clearTimeout(timers.get(partID))
    timers.delete(partID)
  }
  return {
    /**
     * After a delta, arrived at `now`: true when the part is due for a write now (the caller
     * writes it); otherwise a timer writes it when the interval is over.
     */
    due(part: Growing, now: number): boolean {
      const since = now - (written.get(part.id) ?? part.time?.start ?? now)
      if (since >= intervalMs) {
        cancel(part.id)
        written.set(part.id, now)
        return true
      }
      if (timers.has(part.id)) return false
      const timer = setTimeout(() => {
        timers.delete(part.id)
        written.set(part.id, Date.now())
        write(part)
      }, intervalMs - since)
      // A pending checkpoint never keeps the process alive; the part's end writes it anyway.
      timer.unref?.()
      timers.set(part.id, timer)
      return false
    },
    /** The part ended (its end writes it): no checkpoint of it is pending any more. */
    cancel,
    /** The stream ended: whatever is still open is closed and written by the processor. */
    clear(): void {
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
    },
  }
}

export type TextCheckpoints = ReturnType<typeof createTextCheckpoints>
