import { z } from "zod"

/**
 * How long an ask waits, in milliseconds: a positive whole number (up to 2^53 - 1), or
 * Infinity for no limit (so one call can wait longer than the runtime's askTimeoutMs).
 */
export const TimeoutMs = z.custom<number>(
  (value) => value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && (value as number) > 0),
  {
    message: `expected a whole number of milliseconds from 1 to ${Number.MAX_SAFE_INTEGER}, or Infinity for no limit`,
  },
)

// setTimeout fires a delay above this after 1 ms (Node warns and clamps), so longer waits re-arm.
const LONGEST_TIMER_MS = 2 ** 31 - 1

/**
 * Calls `onExpire` once `timeoutMs` have passed, however long that is; never for Infinity.
 * Returns the function that cancels it.
 */
export function startTimeout(timeoutMs: number, onExpire: () => void): () => void {
  if (timeoutMs === Number.POSITIVE_INFINITY) return () => {}
  let timer: ReturnType<typeof setTimeout>
  const arm = (left: number) => {
    const delay = Math.min(left, LONGEST_TIMER_MS)
    timer = setTimeout(() => (left > delay ? arm(left - delay) : onExpire()), delay)
  }
  arm(timeoutMs)
  return () => clearTimeout(timer)
}
