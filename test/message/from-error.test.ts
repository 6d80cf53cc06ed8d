import { APICallError, LoadAPIKeyError, NoOutputGeneratedError, RetryError } from "ai"
import { describe, expect, it } from "vitest"
import {
  InvalidInputError,
  MessageV2,
  NotFoundError,
  Permission,
  Question,
  RuntimeClosedError,
} from "../../src/index.js"
import { fromError, isContextOverflow } from "../../src/message/from-error.js"

const ctx = { providerID: "anthropic" }

function apiCallError(input: {
  message: string
  statusCode?: number
  responseBody?: string
  responseHeaders?: Record<string, string>
  isRetryable?: boolean
}): APICallError {
  return new APICallError({
    message: input.message,
    url: "https://api.anthropic.com/v1/messages",
    requestBodyValues: {},
    statusCode: input.statusCode,
    responseHeaders: input.responseHeaders,
    responseBody: input.responseBody,
    isRetryable: input.isRetryable,
  })
}

describe("MessageV2.fromError: aborts", () => {
  it("maps a DOMException AbortError to AbortedError", () => {
    expect(fromError(new DOMException("This operation was aborted", "AbortError"), ctx)).toEqual({
      name: "AbortedError",
      data: { message: "This operation was aborted" },
    })
  })

  it("maps an Error named AbortError, and keeps an AbortedError as it is", () => {
    const error = Object.assign(new Error("aborted by user"), { name: "AbortError" })
    expect(fromError(error, ctx)).toEqual({ name: "AbortedError", data: { message: "aborted by user" } })
    const own = new MessageV2.AbortedError({ message: "cancelled" })
    expect(fromError(own, ctx)).toEqual({ name: "AbortedError", data: { message: "cancelled" } })
  })
})

describe("MessageV2.fromError: API call errors", () => {
  it("keeps status, retryability, headers, body and URL of an APIError", () => {
    const error = apiCallError({
      message: "Overloaded",
      statusCode: 529,
      responseHeaders: { "retry-after": "3" },
      responseBody: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      isRetryable: true,
    })
    expect(fromError(error, ctx)).toEqual({
      name: "APIError",
      data: {
        message: "Overloaded",
        statusCode: 529,
        isRetryable: true,
        responseHeaders: { "retry-after": "3" },
        responseBody: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        metadata: { url: "https://api.anthropic.com/v1/messages" },
      },
    })
  })

  it("takes the AI SDK's default retryability from the status code", () => {
    expect(
      fromError(apiCallError({ message: "Too many requests", statusCode: 429 }), ctx).data,
    ).toMatchObject({
      statusCode: 429,
      isRetryable: true,
    })
    expect(fromError(apiCallError({ message: "Bad request", statusCode: 400 }), ctx).data).toMatchObject({
      statusCode: 400,
      isRetryable: false,
    })
  })

  it("maps 401 and 403 to AuthError with the provider ID", () => {
    for (const statusCode of [401, 403]) {
      expect(fromError(apiCallError({ message: "denied", statusCode }), { providerID: "openai" })).toEqual({
        name: "AuthError",
        data: { providerID: "openai", message: "denied" },
      })
    }
  })

  it("maps an invalid API key message to AuthError whatever the 4xx status", () => {
    const error = apiCallError({ message: "invalid x-api-key", statusCode: 400 })
    expect(fromError(error, ctx)).toEqual({
      name: "AuthError",
      data: { providerID: "anthropic", message: "invalid x-api-key" },
    })
  })

  it("maps a 413 to ContextOverflowError", () => {
    const error = apiCallError({
      message: "Request Entity Too Large",
      statusCode: 413,
      responseBody: "too big",
    })
    expect(fromError(error, ctx)).toEqual({
      name: "ContextOverflowError",
      data: { message: "Request Entity Too Large", responseBody: "too big" },
    })
  })

  it("maps provider overflow phrasings to ContextOverflowError", () => {
    const messages = [
      "prompt is too long: 213462 tokens > 200000 maximum",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
      "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
      "Request too large for model",
      "too many tokens in request",
    ]
    for (const message of messages) {
      expect(fromError(apiCallError({ message, statusCode: 400 }), ctx)).toEqual({
        name: "ContextOverflowError",
        data: { message },
      })
    }
  })

  it("detects an overflow from the body's error code", () => {
    const responseBody =
      '{"error":{"message":"Bad input","type":"invalid_request_error","code":"context_length_exceeded"}}'
    const error = apiCallError({ message: "Bad input", statusCode: 400, responseBody })
    expect(fromError(error, { providerID: "openai" })).toEqual({
      name: "ContextOverflowError",
      data: { message: "Bad input", responseBody },
    })
  })

  it("does not read a rate limit that mentions tokens as an overflow", () => {
    const error = apiCallError({ message: "Too many tokens per minute", statusCode: 429 })
    expect(fromError(error, ctx).name).toBe("APIError")
  })

  it("takes the message from the body when the SDK left it empty", () => {
    const error = apiCallError({
      message: "",
      statusCode: 500,
      responseBody: '{"error":{"message":"Internal server error"}}',
      isRetryable: true,
    })
    expect(fromError(error, ctx).data).toMatchObject({ message: "Internal server error", isRetryable: true })
  })

  it("unwraps the AI SDK's RetryError and NoOutputGeneratedError", () => {
    const last = apiCallError({ message: "Overloaded", statusCode: 529, isRetryable: true })
    const retry = new RetryError({
      message: "Failed after 3 attempts",
      reason: "maxRetriesExceeded",
      errors: [last],
    })
    expect(fromError(retry, ctx)).toMatchObject({
      name: "APIError",
      data: { statusCode: 529, isRetryable: true },
    })
    const noOutput = new NoOutputGeneratedError({ cause: last })
    expect(fromError(noOutput, ctx)).toMatchObject({ name: "APIError", data: { statusCode: 529 } })
  })
})

describe("MessageV2.fromError: other errors", () => {
  it("maps LoadAPIKeyError to AuthError", () => {
    const error = new LoadAPIKeyError({ message: "Anthropic API key is missing." })
    expect(fromError(error, ctx)).toEqual({
      name: "AuthError",
      data: { providerID: "anthropic", message: "Anthropic API key is missing." },
    })
  })

  it("maps connection resets to a retryable APIError", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })
    expect(fromError(reset, ctx)).toEqual({
      name: "APIError",
      data: { message: "read ECONNRESET", isRetryable: true, metadata: { code: "ECONNRESET" } },
    })
    const fetchFailed = new TypeError("fetch failed", {
      cause: Object.assign(new Error("other side closed"), { code: "ECONNRESET" }),
    })
    expect(fromError(fetchFailed, ctx)).toEqual({
      name: "APIError",
      data: { message: "fetch failed (ECONNRESET)", isRetryable: true, metadata: { code: "ECONNRESET" } },
    })
    expect(fromError(new Error("socket hang up"), ctx)).toEqual({
      name: "APIError",
      data: { message: "socket hang up (ECONNRESET)", isRetryable: true, metadata: { code: "ECONNRESET" } },
    })
  })

  it("keeps an OutputLengthError as it is", () => {
    expect(fromError(new MessageV2.OutputLengthError({}), ctx)).toEqual({
      name: "OutputLengthError",
      data: {},
    })
  })

  it("maps a plain error with overflow text to ContextOverflowError", () => {
    expect(fromError(new Error("prompt is too long: 300000 tokens > 200000 maximum"), ctx)).toEqual({
      name: "ContextOverflowError",
      data: { message: "prompt is too long: 300000 tokens > 200000 maximum" },
    })
  })

  it("maps anything else to UnknownError, as JSON when it is not an Error", () => {
    expect(fromError(new TypeError("x is undefined"), ctx)).toEqual({
      name: "UnknownError",
      data: { message: "TypeError: x is undefined" },
    })
    expect(fromError({ reason: 42 }, ctx)).toEqual({
      name: "UnknownError",
      data: { message: '{"reason":42}' },
    })
    expect(fromError("boom", ctx)).toEqual({ name: "UnknownError", data: { message: "boom" } })
    expect(fromError(undefined, ctx)).toEqual({ name: "UnknownError", data: { message: "undefined" } })
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(fromError(cyclic, ctx)).toEqual({ name: "UnknownError", data: { message: "[object Object]" } })
  })

  it("maps a rejected question to UnknownError with its name and message", () => {
    expect(fromError(Question.RejectedError.byUser(), ctx)).toEqual({
      name: "UnknownError",
      data: { message: "QuestionRejectedError: The user dismissed this question." },
    })
  })

  it("maps a rejected permission to UnknownError with its name and message", () => {
    expect(fromError(Permission.RejectedError.byUser(), ctx)).toEqual({
      name: "UnknownError",
      data: {
        message: "PermissionRejectedError: The user rejected permission to use this specific tool call.",
      },
    })
  })

  it("maps NotFoundError to UnknownError with its name and message", () => {
    expect(fromError(NotFoundError.of("Session", "ses_missing"), ctx)).toEqual({
      name: "UnknownError",
      data: { message: "NotFoundError: Session not found: ses_missing" },
    })
  })

  it("maps any other named error of the package to UnknownError, never to a provider's APIError", () => {
    const errors = [
      new RuntimeClosedError({ message: "The runtime is closed" }),
      new InvalidInputError({ message: "Invalid after", issues: [{ path: "after", message: "bad" }] }),
      Permission.DeniedError.byRules([]),
      Permission.CorrectedError.withFeedback("use git mv"),
    ]
    for (const error of errors) {
      expect(fromError(error, ctx), error.name).toEqual({
        name: "UnknownError",
        data: { message: `${error.name}: ${error.message}` },
      })
    }
  })

  it("always returns something the assistant error schema accepts", () => {
    const inputs = [
      new Error("x"),
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      null,
      7,
    ]
    for (const input of inputs) {
      const result = fromError(input, ctx)
      expect(MessageV2.AssistantError.parse(result)).toEqual(result)
    }
  })
})

describe("MessageV2.fromError: mid-stream provider errors", () => {
  it("maps an overloaded error part to a retryable APIError", () => {
    const part = { type: "overloaded_error", message: "Overloaded" }
    expect(fromError(part, ctx)).toEqual({
      name: "APIError",
      data: { message: "Overloaded", isRetryable: true, responseBody: JSON.stringify(part) },
    })
  })

  it("reads the whole error chunk and its JSON string form", () => {
    const chunk = { type: "error", error: { type: "rate_limit_error", message: "Rate limited" } }
    expect(fromError(chunk, ctx)).toMatchObject({
      name: "APIError",
      data: { message: "Rate limited", isRetryable: true },
    })
    expect(fromError(JSON.stringify(chunk), ctx)).toMatchObject({
      name: "APIError",
      data: { isRetryable: true },
    })
  })

  it("maps an invalid request with overflow text to ContextOverflowError", () => {
    const part = {
      type: "invalid_request_error",
      message: "prompt is too long: 250000 tokens > 200000 maximum",
    }
    expect(fromError(part, ctx)).toEqual({
      name: "ContextOverflowError",
      data: {
        message: "prompt is too long: 250000 tokens > 200000 maximum",
        responseBody: JSON.stringify(part),
      },
    })
  })

  it("maps OpenAI's context_length_exceeded code to ContextOverflowError", () => {
    const part = {
      type: "error",
      code: "context_length_exceeded",
      message: "Your input exceeds the context window.",
    }
    expect(fromError(part, { providerID: "openai" }).name).toBe("ContextOverflowError")
  })

  it("maps other provider errors to a non-retryable APIError", () => {
    const part = { error: { type: "invalid_request_error", message: "tools.0: unknown field" } }
    expect(fromError(part, ctx)).toEqual({
      name: "APIError",
      data: { message: "tools.0: unknown field", isRetryable: false, responseBody: JSON.stringify(part) },
    })
  })

  it("maps an authentication error part to AuthError", () => {
    const part = { type: "authentication_error", message: "invalid x-api-key" }
    expect(fromError(part, ctx)).toEqual({
      name: "AuthError",
      data: { providerID: "anthropic", message: "invalid x-api-key" },
    })
  })
})

describe("MessageV2.isContextOverflow", () => {
  it("matches overflow phrasings and a 413, never a 429 or 5xx", () => {
    expect(isContextOverflow("prompt is too long")).toBe(true)
    expect(isContextOverflow("context_length_exceeded")).toBe(true)
    expect(isContextOverflow("413 (no body)")).toBe(true)
    expect(isContextOverflow("anything", 413)).toBe(true)
    expect(isContextOverflow("too many tokens", 429)).toBe(false)
    expect(isContextOverflow("prompt is too long", 503)).toBe(false)
    expect(isContextOverflow("Overloaded")).toBe(false)
  })
})

describe("fromError with ai 7's wrapped stream errors", () => {
  it("classifies the provider's error object carried in `data`", () => {
    const wrapped = Object.assign(new Error("Overloaded"), {
      name: "AI_StreamProviderError",
      statusCode: 503,
      isRetryable: true,
      data: { type: "overloaded_error", message: "Overloaded" },
    })
    expect(fromError(wrapped, { providerID: "anthropic" })).toMatchObject({
      name: "APIError",
      data: { isRetryable: true },
    })
  })
})
