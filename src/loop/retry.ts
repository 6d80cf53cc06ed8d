import { z } from "zod"
import type { APIError, AssistantError } from "../message/errors.js"

/** setTimeout fires at once for longer delays (they overflow a 32-bit signed int). */
const MAX_TIMER_MS = 2_147_483_647

const INITIAL_DELAY_MS = 2_000
const BACKOFF_FACTOR = 2
/** Cap of the exponential backoff when the provider did not say how long to wait. */
const MAX_BACKOFF_MS = 30_000
/**
 * First wait after a connection that could not be made. A wrong base URL, a server that is not
 * running or a bad certificate rarely mends itself within minutes: the defaults (2 retries, 1 s
 * then 2 s) give up within seconds, enough for a local server still starting or a DNS blip.
 */
const CONNECT_DELAY_MS = 1_000
const CONNECT_ATTEMPTS = 2

/**
 * How the loop retries a failed model call that may succeed later (overload, rate limit, 5xx, a
 * lost connection): at most `maxAttempts` retries, each wait bounded. Set it as
 * `RuntimeOptions.retry`; a malformed value throws `InvalidInputError` from `createRuntime`.
 */
export const RetryOptions = z.strictObject({
  /** Retries after the first failed attempt; 0 turns retrying off. */
  maxAttempts: z.number().int().nonnegative().default(8),
  /** Upper bound of one wait, including waits a provider asks for in its headers. */
  maxDelayMs: z.number().int().positive().max(MAX_TIMER_MS).default(300_000),
  /**
   * Retries when the provider could not be reached at all (connection refused, unknown host,
   * TLS failure), 1 s doubling apart; never more than `maxAttempts`.
   */
  connectAttempts: z.number().int().nonnegative().default(CONNECT_ATTEMPTS),
})
export type RetryOptions = z.infer<typeof RetryOptions>
export type RetryOptionsInput = z.input<typeof RetryOptions>

// Matched against error messages (and the JSON bodies some providers put in them), so `_` and `-`
// separators count as spaces: "rate_limit_error", "too_many_requests", "RESOURCE_EXHAUSTED".
// "Request rate increased too quickly" is Alibaba's burst rate limit.
const RATE_LIMITED = /rate[\s_-]?limit|too[\s_-]many[\s_-]requests|rate increased too quickly/i
const OVERLOADED = /overloaded|exhausted|unavailable/i
const TIMED_OUT = /timed[\s_-]?out|timeout/i
const CONNECTION_LOST = /ECONNRESET|EPIPE|UND_ERR_SOCKET|socket hang up|fetch failed|connection reset/i
// No connection was ever made (Node's and undici's codes, OpenSSL's complaints): the request never
// reached the provider, and retrying the same address quickly tells the user nothing new.
const CONNECT_FAILED =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT|Connect Timeout Error|EPROTO|wrong version number|certificate|CERT_/i
const CANNOT_CONNECT = "Cannot connect to the provider"
// OpenAI's error type for a failure on its side. Only this token: an HTML 404 page can say "Server Error".
const SERVER_FAILED = /\bserver_error\b/

// The AI SDK retries these 4xx itself; every other 4xx means the request is wrong and stays wrong.
const RETRYABLE_CLIENT_STATUS = new Set([408, 409, 429])
// Bad credentials and an unknown model: whatever the body says, the same request fails again.
const NEVER_RETRIED_STATUS = new Set([401, 403, 404])

/** Longest provider message shown in a retry status; a full HTML error page helps no one. */
const MAX_MESSAGE_LENGTH = 200

/**
 * A short message for the retry status when the error is transient, else undefined. Errors
 * about the request itself (auth, context overflow, output length, other 4xx unless they relay
 * a provider's `server_error`) and aborts never are: sending the same request again cannot succeed.
 */
export function retryMessage(error: AssistantError): string | undefined {
  switch (error.name) {
    case "APIError":
      return apiRetryMessage(error.data)
    case "UnknownError":
      return transientKind(error.data.message)
    default:
      return undefined
  }
}

function apiRetryMessage(data: APIError["data"]): string | undefined {
  const status = data.statusCode
  if (status !== undefined && NEVER_RETRIED_STATUS.has(status)) return undefined
  // Proxies relay a provider's server failure with a 400 or no status; its error JSON still says so.
  const serverFailed = SERVER_FAILED.test(`${data.message}\n${data.responseBody ?? ""}`)
  const clientError =
    status !== undefined && status >= 400 && status < 500 && !RETRYABLE_CLIENT_STATUS.has(status)
  if (clientError && !serverFailed) return undefined
  const known = transientKind(data.message, status)
  if (known) return known
  if (status !== undefined && status >= 500) return `Provider error (HTTP ${status})`
  if (data.isRetryable || serverFailed) return statusLine(data.message)
  return undefined
}

function transientKind(message: string, status?: number): string | undefined {
  if (status === undefined && CONNECT_FAILED.test(message)) return CANNOT_CONNECT
  if (status === 429 || RATE_LIMITED.test(message)) return "Rate limited by the provider"
  if (status === 503 || status === 529 || OVERLOADED.test(message)) return "Provider is overloaded"
  if (status === 408 || status === 504 || TIMED_OUT.test(message)) return "Request timed out"
  if (CONNECTION_LOST.test(message)) return "Connection to the provider was lost"
  return undefined
}

/** The provider's message as a status line; an empty one or raw JSON reads better as "Provider error". */
function statusLine(message: string): string {
  const line = message.trim().split("\n")[0] ?? ""
  if (line === "" || line.includes('{"')) return "Provider error"
  return line.length > MAX_MESSAGE_LENGTH ? `${line.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : line
}

/**
 * Whether to retry a failed model call, and after how long: retry number `attempt` (1-based)
 * of a call that failed with `error`, or undefined when the call should fail now. A transient
 * error is retried `maxAttempts` times (see retryDelay); a connection that could not be made,
 * `connectAttempts` times, 1 s doubling apart.
 */
export function nextRetry(
  attempt: number,
  error: AssistantError,
  options: { maxAttempts: number; maxDelayMs: number; connectAttempts?: number },
  now: number = Date.now(),
): { message: string; delayMs: number } | undefined {
  const message = retryMessage(error)
  if (message === undefined || attempt > options.maxAttempts) return undefined
  if (message !== CANNOT_CONNECT) return { message, delayMs: retryDelay(attempt, error, options, now) }
  if (attempt > (options.connectAttempts ?? CONNECT_ATTEMPTS)) return undefined
  const delay = CONNECT_DELAY_MS * BACKOFF_FACTOR ** Math.max(0, Math.floor(attempt) - 1)
  return { message, delayMs: Math.min(delay, options.maxDelayMs) }
}

/**
 * How long to wait before retry number `attempt` (1-based): what the provider asked for in
 * `retry-after-ms` or `retry-after`, else 2 s doubling per attempt up to 30 s; never more than
 * `maxDelayMs`.
 */
export function retryDelay(
  attempt: number,
  error: AssistantError,
  options: { maxDelayMs: number },
  now: number = Date.now(),
): number {
  const asked = error.name === "APIError" ? headerDelay(error.data.responseHeaders, now) : undefined
  const delay = asked ?? backoff(attempt)
  return Math.max(0, Math.min(delay, options.maxDelayMs))
}

function backoff(attempt: number): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1)
  return Math.min(INITIAL_DELAY_MS * BACKOFF_FACTOR ** exponent, MAX_BACKOFF_MS)
}

function headerDelay(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]))

  const milliseconds = parseNumber(lower.get("retry-after-ms"))
  if (milliseconds !== undefined) return Math.ceil(milliseconds)

  const retryAfter = lower.get("retry-after")
  if (!retryAfter) return undefined
  const seconds = parseNumber(retryAfter)
  if (seconds !== undefined) return Math.ceil(seconds * 1_000)
  // RFC 9110 also allows an HTTP date; one already past means "retry now".
  const date = Date.parse(retryAfter)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

// Number() rather than parseFloat(): "12abc" is garbage, not 12.
function parseNumber(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined
  const parsed = Number(value)
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined
}

/**
 * Waits `ms`, or rejects with the signal's reason (an AbortError unless the aborter gave
 * another) as soon as the signal aborts.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal))
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal))
    }
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort)
        resolve()
      },
      Math.max(0, Math.min(Number.isNaN(ms) ? 0 : ms, MAX_TIMER_MS)),
    )
    signal.addEventListener("abort", onAbort, { once: true })
  })
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError")
}
