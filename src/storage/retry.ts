import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { isTransient, StorageError, type StorageErrorReason } from "./storage-error.js"

/** setTimeout fires at once for longer delays (they overflow a 32-bit signed int). */
const MAX_TIMER_MS = 2_147_483_647

/**
 * How an adapter retries a call that met a transient fault (a lock held by another connection,
 * a lost connection to the server). The same shape and meaning as the runtime's `retry`.
 */
export const StorageRetryOptions = z.strictObject({
  /** Retries after the first failed attempt; 0 turns retrying off. */
  maxAttempts: z.number().int().nonnegative().max(10_000).optional(),
  /** Upper bound of one wait between attempts. Waits start small and double up to it. */
  maxDelayMs: z.number().int().nonnegative().max(MAX_TIMER_MS).optional(),
})
export type StorageRetryOptions = z.input<typeof StorageRetryOptions>

export type RetryPolicy = {
  maxAttempts: number
  maxDelayMs: number
  /** The first wait; each next one doubles, up to maxDelayMs. */
  firstDelayMs: number
}

/** The policy from a host's `retry` option (InvalidInputError naming it when malformed) and the adapter's defaults. */
export function retryPolicy(adapter: string, given: unknown, defaults: RetryPolicy): RetryPolicy {
  const options = parseInput(`${adapter} options`, z.object({ retry: StorageRetryOptions.optional() }), {
    retry: given,
  }).retry
  return {
    maxAttempts: options?.maxAttempts ?? defaults.maxAttempts,
    maxDelayMs: options?.maxDelayMs ?? defaults.maxDelayMs,
    firstDelayMs: Math.min(defaults.firstDelayMs, options?.maxDelayMs ?? defaults.maxDelayMs),
  }
}

/** A driver error read as a fault: what kind, the driver's code, and a sentence about it. */
export type Fault = { reason: StorageErrorReason; code?: string | undefined; message: string }

export type Retrying = {
  policy: RetryPolicy
  /** The fault a driver error stands for; undefined for errors that are not faults (NotFoundError...). */
  classify: (error: unknown) => Fault | undefined
  /** The adapter's waits between attempts; closing them ends every wait, and the calls fail as closed. */
  waits: Waits
  closed: () => StorageError
}

/** The wait before retry number `retry` (1-based): doubling from firstDelayMs, capped, with jitter. */
export function retryDelay(policy: RetryPolicy, retry: number): number {
  const doubled = policy.firstDelayMs * 2 ** Math.min(retry - 1, 30)
  // Up to a quarter less, so that processes waiting on one lock do not retry in step.
  return Math.round(Math.min(doubled, policy.maxDelayMs) * (1 - Math.random() / 4))
}

/**
 * Runs `attempt` until it succeeds or fails with something a retry cannot cure. An error that
 * is no fault is thrown as it is; a fault becomes a StorageError (the driver's error its cause),
 * at once when it is not transient, after `policy.maxAttempts` retries when it is. `failed`
 * is the first attempt's error when the caller already ran it (the fast path of SQLite).
 */
export async function retrying<T>(
  attempt: (retry: number) => T | Promise<T>,
  options: Retrying,
  failed?: { error: unknown },
): Promise<T> {
  const { policy, waits } = options
  const started = performance.now()
  let attempts = failed ? 1 : 0
  let error = failed?.error
  for (;;) {
    if (attempts > 0) {
      if (StorageError.isInstance(error)) throw error
      const fault = options.classify(error)
      if (!fault) throw error
      if (!isTransient(fault.reason) || attempts > policy.maxAttempts)
        throw gaveUp(fault, error, attempts, started)
      await waits.wait(retryDelay(policy, attempts))
    }
    if (waits.closed) throw options.closed()
    try {
      return await attempt(attempts)
    } catch (caught) {
      error = caught
      attempts++
    }
  }
}

function gaveUp(fault: Fault, cause: unknown, attempts: number, started: number): StorageError {
  const spent = attempts > 1 ? ` (gave up after ${attempts} attempts over ${elapsed(started)})` : ""
  return new StorageError(
    {
      reason: fault.reason,
      retryable: isTransient(fault.reason),
      ...(fault.code === undefined ? {} : { code: fault.code }),
      attempts,
      message: fault.message + spent,
    },
    { cause },
  )
}

function elapsed(since: number): string {
  const ms = performance.now() - since
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

export type Waits = ReturnType<typeof createWaits>

/**
 * The timers an adapter waits on between attempts, so that `close()` can end them all at once
 * (rather than a listener per wait on one AbortSignal, which Node warns about past ten).
 */
export function createWaits() {
  const waking = new Set<() => void>()
  let closed = false
  return {
    get closed(): boolean {
      return closed
    },
    /** Resolves after `ms`, or at once when closed. */
    wait(ms: number): Promise<void> {
      if (closed) return Promise.resolve()
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer)
          waking.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, ms)
        waking.add(wake)
      })
    },
    close(): void {
      closed = true
      for (const wake of [...waking]) wake()
    },
  }
}
