import { APICallError } from "ai"
import { describe, expect, it } from "vitest"
import { nextRetry, RetryOptions } from "../../src/loop/retry.js"
import { APIError, type AssistantError, AuthError, UnknownError } from "../../src/message/errors.js"
import { fromError } from "../../src/message/from-error.js"

const defaults = RetryOptions.parse({})

/** What the AI SDK throws when fetch fails before any response: the cause's message, marked retryable. */
function cannotConnect(cause: string): AssistantError {
  const error = new APICallError({
    message: `Cannot connect to API: ${cause}`,
    url: "http://localhost:4000/v1/chat/completions",
    requestBodyValues: {},
    isRetryable: true,
  })
  return fromError(error, { providerID: "local" })
}

/** The retries `nextRetry` allows for `error`, as [message, delay] pairs, until it says stop. */
function retriesOf(error: AssistantError, options: RetryOptions = defaults): [string, number][] {
  const retries: [string, number][] = []
  for (let attempt = 1; attempt < 100; attempt++) {
    const retry = nextRetry(attempt, error, options)
    if (!retry) return retries
    retries.push([retry.message, retry.delayMs])
  }
  throw new Error("never stopped")
}

describe("nextRetry", () => {
  it("retries a connection that could not be made 2 times within 3 s, whatever the base URL's fault", () => {
    for (const cause of [
      "connect ECONNREFUSED 127.0.0.1:4000",
      "getaddrinfo ENOTFOUND api.exmaple.com",
      "getaddrinfo EAI_AGAIN api.example.com",
      "connect EHOSTUNREACH 10.0.0.9:443",
      "Connect Timeout Error (attempted address: 10.0.0.9:443, timeout: 10000ms)",
      "write EPROTO 00000000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number",
      "unable to verify the first certificate",
    ]) {
      expect(retriesOf(cannotConnect(cause)), cause).toEqual([
        ["Cannot connect to the provider", 1_000],
        ["Cannot connect to the provider", 2_000],
      ])
    }
    const plain = new UnknownError({ message: "TypeError: fetch failed: connect ECONNREFUSED ::1:11434" })
    expect(retriesOf(plain.toObject())).toHaveLength(2)
  })

  it("keeps the bounded retry for a connection lost mid-stream", () => {
    for (const message of ["read ECONNRESET", "socket hang up", "terminated: other side closed"]) {
      const lost = new APIError({ message, isRetryable: true }).toObject()
      const retries = retriesOf(lost)
      expect(retries, message).toHaveLength(8)
      expect(retries.map(([, delay]) => delay)).toEqual([
        2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000,
      ])
    }
  })

  it("never retries bad credentials or an unknown model, even when the body names a server error", () => {
    const serverError = '{"error":{"type":"server_error","message":"upstream failed"}}'
    for (const statusCode of [401, 403, 404]) {
      const error = new APIError({ message: serverError, statusCode, isRetryable: true }).toObject()
      expect(nextRetry(1, error, defaults), String(statusCode)).toBeUndefined()
    }
    expect(nextRetry(1, new AuthError({ providerID: "p", message: "bad key" }).toObject(), defaults)).toBe(
      undefined,
    )
  })

  it("takes the connect budget from connectAttempts, never beyond maxAttempts", () => {
    const refused = cannotConnect("connect ECONNREFUSED 127.0.0.1:4000")
    expect(retriesOf(refused, RetryOptions.parse({ connectAttempts: 4 })).map(([, delay]) => delay)).toEqual([
      1_000, 2_000, 4_000, 8_000,
    ])
    expect(retriesOf(refused, RetryOptions.parse({ connectAttempts: 0 }))).toEqual([])
    expect(retriesOf(refused, RetryOptions.parse({ maxAttempts: 1 }))).toHaveLength(1)
    expect(retriesOf(refused, RetryOptions.parse({ maxDelayMs: 500 })).map(([, delay]) => delay)).toEqual([
      500, 500,
    ])
  })

  it("waits what the provider asked for on a rate limit, up to maxAttempts", () => {
    const limited = new APIError({
      message: "Too Many Requests",
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { "retry-after": "7" },
    }).toObject()
    expect(nextRetry(1, limited, defaults)).toEqual({
      message: "Rate limited by the provider",
      delayMs: 7_000,
    })
    expect(nextRetry(8, limited, defaults)).toBeDefined()
    expect(nextRetry(9, limited, defaults)).toBeUndefined()
  })
})

describe("RetryOptions", () => {
  it("keeps the old shape and adds a connect budget of 2 retries", () => {
    expect(RetryOptions.parse({ maxAttempts: 3, maxDelayMs: 1_000 })).toEqual({
      maxAttempts: 3,
      maxDelayMs: 1_000,
      connectAttempts: 2,
    })
    expect(RetryOptions.safeParse({ connectAttempts: -1 }).success).toBe(false)
  })
})
