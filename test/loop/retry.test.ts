import { APICallError } from "ai"
import { afterEach, describe, expect, it, vi } from "vitest"
import { RetryOptions, retryDelay, retryMessage, sleep } from "../../src/loop/retry.js"
import {
  AbortedError,
  APIError,
  type AssistantError,
  AuthError,
  ContextOverflowError,
  OutputLengthError,
  UnknownError,
} from "../../src/message/errors.js"
import { fromError } from "../../src/message/from-error.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

afterEach(() => {
  vi.useRealTimers()
})

function apiError(data: Partial<APIError["data"]> = {}): AssistantError {
  return new APIError({ message: "boom", isRetryable: false, ...data }).toObject()
}

const unknown = (message: string): AssistantError => new UnknownError({ message }).toObject()
const limits = { maxDelayMs: 300_000 }

describe("retryMessage", () => {
  it("retries server errors and rate limits by status, whatever the SDK flag says", () => {
    expect(retryMessage(apiError({ statusCode: 500 }))).toBe("Provider error (HTTP 500)")
    expect(retryMessage(apiError({ statusCode: 502, isRetryable: true }))).toBe("Provider error (HTTP 502)")
    expect(retryMessage(apiError({ statusCode: 503 }))).toBe("Provider is overloaded")
    expect(retryMessage(apiError({ statusCode: 529 }))).toBe("Provider is overloaded")
    expect(retryMessage(apiError({ statusCode: 504 }))).toBe("Request timed out")
    expect(retryMessage(apiError({ statusCode: 429 }))).toBe("Rate limited by the provider")
    expect(retryMessage(apiError({ statusCode: 408 }))).toBe("Request timed out")
  })

  it("retries a 409 only when the SDK marked it retryable", () => {
    expect(retryMessage(apiError({ statusCode: 409, isRetryable: true, message: "Conflict" }))).toBe(
      "Conflict",
    )
    expect(retryMessage(apiError({ statusCode: 409, message: "Conflict" }))).toBeUndefined()
  })

  it("never retries other client errors, even when marked retryable or worded like a rate limit", () => {
    for (const statusCode of [400, 401, 403, 404, 413, 422]) {
      expect(retryMessage(apiError({ statusCode, isRetryable: true, message: "rate limit" }))).toBeUndefined()
    }
  })

  it("retries API errors marked retryable, with their first line as the message", () => {
    expect(retryMessage(apiError({ isRetryable: true, message: "Upstream hiccup\nstack..." }))).toBe(
      "Upstream hiccup",
    )
    expect(retryMessage(apiError({ isRetryable: true, message: "   " }))).toBe("Provider error")
    const long = retryMessage(apiError({ isRetryable: true, message: "x".repeat(500) }))
    expect(long).toHaveLength(200)
    expect(long?.endsWith("…")).toBe(true)
    expect(retryMessage(apiError({ message: "Invalid request" }))).toBeUndefined()
  })

  it("recognises rate limits, overload, timeouts and resets in messages and stream error types", () => {
    const cases: [string, string][] = [
      ["Rate limit reached for requests", "Rate limited by the provider"],
      ['{"type":"error","error":{"type":"rate_limit_error"}}', "Rate limited by the provider"],
      ['{"type":"error","error":{"type":"too_many_requests"}}', "Rate limited by the provider"],
      ["Too Many Requests", "Rate limited by the provider"],
      ["Overloaded", "Provider is overloaded"],
      ['{"code":"RESOURCE_EXHAUSTED"}', "Provider is overloaded"],
      ["Service Unavailable", "Provider is overloaded"],
      ["The request timed out", "Request timed out"],
      ["TimeoutError: signal timed out", "Request timed out"],
      ["read ECONNRESET", "Connection to the provider was lost"],
      ["socket hang up", "Connection to the provider was lost"],
      ["TypeError: fetch failed", "Connection to the provider was lost"],
    ]
    for (const [message, expected] of cases) {
      expect(retryMessage(unknown(message)), message).toBe(expected)
      expect(retryMessage(apiError({ message })), message).toBe(expected)
    }
  })

  it("does not retry unknown errors that name no transient cause", () => {
    expect(retryMessage(unknown("TypeError: cannot read properties of undefined"))).toBeUndefined()
  })

  it("never retries errors about the request itself, or aborts", () => {
    const errors: AssistantError[] = [
      new ContextOverflowError({ message: "prompt is too long (rate limit)" }).toObject(),
      new AuthError({ providerID: "openai", message: "Invalid API key" }).toObject(),
      new AbortedError({ message: "The operation timed out" }).toObject(),
      new OutputLengthError({ message: "overloaded" }).toObject(),
    ]
    for (const error of errors) expect(retryMessage(error), error.name).toBeUndefined()
  })
})

describe("retryMessage of provider errors as fromError classifies them", () => {
  const ALIBABA_BURST =
    "Upstream error from Alibaba: Request rate increased too quickly. To ensure system stability, please adjust your client logic to scale requests more smoothly over time."
  const OPENAI_SERVER_ERROR = JSON.stringify({
    type: "error",
    sequence_number: 2,
    error: {
      type: "server_error",
      code: "server_error",
      message: "An error occurred while processing your request.",
      param: null,
    },
  })
  const classify = (error: unknown) => retryMessage(fromError(error, { providerID: "openai" }))
  const apiCallError = (message: string, statusCode: number | undefined) =>
    new APICallError({ message, url: "https://api.example.com", requestBodyValues: {}, statusCode })

  it("retries Alibaba's 'Request rate increased too quickly' as a rate limit, however it arrives", () => {
    const expected = "Rate limited by the provider"
    expect(retryMessage(unknown(ALIBABA_BURST))).toBe(expected)
    expect(retryMessage(apiError({ message: ALIBABA_BURST }))).toBe(expected)
    expect(classify(new Error(ALIBABA_BURST))).toBe(expected)
    expect(classify(apiCallError(ALIBABA_BURST, undefined))).toBe(expected)
    expect(classify({ error: { code: "limit_burst_rate", message: ALIBABA_BURST } })).toBe(expected)
  })

  it("retries an OpenAI server_error whose JSON is the message of a mid-stream error", () => {
    const stored = fromError({ message: OPENAI_SERVER_ERROR }, { providerID: "openai" })
    expect(stored).toMatchObject({
      name: "APIError",
      data: { message: "An error occurred while processing your request.", isRetryable: true },
    })
    expect(retryMessage(stored)).toBe("An error occurred while processing your request.")
    expect(classify(new Error(OPENAI_SERVER_ERROR))).toBe("An error occurred while processing your request.")
  })

  it("retries an OpenAI server_error whose JSON sits in an API call error's message, with no status or a 400", () => {
    for (const statusCode of [undefined, 400]) {
      const error = apiCallError(`Bad Request: ${OPENAI_SERVER_ERROR}`, statusCode)
      expect(fromError(error, { providerID: "openai" }).data, String(statusCode)).toMatchObject({
        isRetryable: true,
      })
      expect(classify(error), String(statusCode)).toBe("Provider error")
    }
  })

  it("still never retries a 400 that names no server failure", () => {
    const invalid = JSON.stringify({ error: { type: "invalid_request_error", message: "Bad tool schema" } })
    expect(classify(apiCallError(invalid, 400))).toBeUndefined()
  })
})

describe("retrying in a running session", () => {
  it("retries an OpenAI server_error that arrives mid-stream as JSON in the error's message", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] })
    const serverError = JSON.stringify({
      type: "error",
      error: { type: "server_error", code: "server_error", message: "An error occurred." },
    })
    const { runtime, model } = createTestRuntime({
      turns: [[say.error({ message: serverError })], [say.text("fine now")]],
    })
    const session = await runtime.session.create({ title: "Fixed title" })
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hello" }] })
    await vi.waitFor(() => expect(runtime.session.status(session.id).type).toBe("retry"))
    expect(runtime.session.status(session.id)).toMatchObject({ attempt: 1, message: "An error occurred." })
    await vi.advanceTimersByTimeAsync(2_000)
    const final = await answer
    expect(final.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))).toEqual(["fine now"])
    expect(final.info.role === "assistant" && final.info.error).toBeUndefined()
    expect(model.calls).toHaveLength(2)
  })
})

describe("retryDelay", () => {
  it("doubles from 2 s per attempt and caps the backoff at 30 s", () => {
    const error = apiError({ statusCode: 500 })
    expect([1, 2, 3, 4, 5, 6, 10].map((attempt) => retryDelay(attempt, error, limits))).toEqual([
      2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ])
    expect(retryDelay(3, unknown("overloaded"), limits)).toBe(8_000)
  })

  it("treats an attempt below 1 as the first", () => {
    expect(retryDelay(0, apiError(), limits)).toBe(2_000)
  })

  it("prefers retry-after-ms, then retry-after in seconds, matching header names in any case", () => {
    const both = apiError({ responseHeaders: { "Retry-After-Ms": "1500.2", "retry-after": "9" } })
    expect(retryDelay(1, both, limits)).toBe(1_501)
    expect(retryDelay(1, apiError({ responseHeaders: { "Retry-After": "7" } }), limits)).toBe(7_000)
    expect(retryDelay(1, apiError({ responseHeaders: { "retry-after": "0.25" } }), limits)).toBe(250)
    expect(retryDelay(4, apiError({ responseHeaders: { "retry-after": "0" } }), limits)).toBe(0)
    // A header may ask for more than the 30 s backoff cap.
    expect(retryDelay(1, apiError({ responseHeaders: { "retry-after": "120" } }), limits)).toBe(120_000)
  })

  it("reads retry-after as an HTTP date relative to now, never negative", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")
    const later = apiError({ responseHeaders: { "retry-after": "Wed, 21 Oct 2015 07:28:45 GMT" } })
    expect(retryDelay(1, later, limits, now)).toBe(45_000)
    const past = apiError({ responseHeaders: { "retry-after": "Wed, 21 Oct 2015 07:27:00 GMT" } })
    expect(retryDelay(1, past, limits, now)).toBe(0)
  })

  it("falls back to the backoff when the headers are missing or unreadable", () => {
    const garbage = apiError({ responseHeaders: { "retry-after-ms": "soon", "retry-after": "12abc" } })
    expect(retryDelay(2, garbage, limits)).toBe(4_000)
    expect(retryDelay(2, apiError({ responseHeaders: { "retry-after-ms": "-5" } }), limits)).toBe(4_000)
    expect(retryDelay(2, apiError({ responseHeaders: { "x-request-id": "abc" } }), limits)).toBe(4_000)
    expect(retryDelay(2, apiError({ responseHeaders: { "retry-after": "" } }), limits)).toBe(4_000)
  })

  it("never exceeds maxDelayMs, whoever asked for the wait", () => {
    const error = apiError({ responseHeaders: { "retry-after": "3600" } })
    expect(retryDelay(1, error, limits)).toBe(300_000)
    expect(retryDelay(1, error, { maxDelayMs: 5_000 })).toBe(5_000)
    expect(retryDelay(5, apiError(), { maxDelayMs: 10_000 })).toBe(10_000)
  })
})

describe("sleep", () => {
  it("resolves after the delay and removes its abort listener", async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const remove = vi.spyOn(controller.signal, "removeEventListener")
    let done = false
    const wait = sleep(1_000, controller.signal).then(() => {
      done = true
    })
    await vi.advanceTimersByTimeAsync(999)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await wait
    expect(done).toBe(true)
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function))
  })

  it("rejects with an AbortError as soon as the signal aborts and clears its timer", async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const wait = sleep(60_000, controller.signal).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(10)
    controller.abort()
    const error = await wait
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).name).toBe("AbortError")
    expect(vi.getTimerCount()).toBe(0)
  })

  it("rejects with the reason the aborter gave", async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const reason = new Error("cancelled by the host")
    const wait = sleep(5_000, controller.signal).catch((error: unknown) => error)
    controller.abort(reason)
    expect(await wait).toBe(reason)
  })

  it("rejects at once when the signal is already aborted, starting no timer", async () => {
    vi.useFakeTimers()
    const error = await sleep(5_000, AbortSignal.abort()).catch((caught: unknown) => caught)
    expect((error as DOMException).name).toBe("AbortError")
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe("RetryOptions", () => {
  it("defaults to 8 attempts, 5 minutes and 2 connect attempts", () => {
    expect(RetryOptions.parse({})).toEqual({ maxAttempts: 8, maxDelayMs: 300_000, connectAttempts: 2 })
    expect(RetryOptions.parse({ maxAttempts: 0 })).toMatchObject({ maxAttempts: 0, maxDelayMs: 300_000 })
  })

  it("rejects negative or fractional attempts, non-positive delays and unknown keys", () => {
    expect(RetryOptions.safeParse({ maxAttempts: -1 }).success).toBe(false)
    expect(RetryOptions.safeParse({ maxAttempts: 1.5 }).success).toBe(false)
    expect(RetryOptions.safeParse({ maxDelayMs: 0 }).success).toBe(false)
    expect(RetryOptions.safeParse({ maxDelayMs: 2 ** 31 }).success).toBe(false)
    expect(RetryOptions.safeParse({ maxAttempt: 3 }).success).toBe(false)
  })
})
