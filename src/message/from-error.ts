import { APICallError, LoadAPIKeyError, NoOutputGeneratedError, RetryError } from "ai"
import { isNamedError } from "../error/named-error.js"
import {
  AbortedError,
  APIError,
  AssistantError,
  AuthError,
  ContextOverflowError,
  UnknownError,
} from "./errors.js"

// Provider phrasings of "the prompt does not fit", after OpenCode's ProviderError (itself adapted
// from pi-mono). Matched against the message and the response body.
const OVERFLOW_PATTERNS = [
  /prompt is too long/i, // Anthropic
  /input is too long for requested model/i, // Amazon Bedrock
  /maximum context length/i, // OpenAI chat, OpenRouter, DeepSeek, vLLM
  /context[_ ]length[_ ]exceeded/i, // OpenAI error code, generic
  /exceeds the context window/i, // OpenAI Responses
  /input token count.*exceeds the maximum/i, // Google Gemini
  /maximum prompt length is \d+/i, // xAI
  /reduce the length of the messages/i, // Groq
  /exceeds the limit of \d+/i, // GitHub Copilot
  /exceeds the available context size/i, // llama.cpp
  /greater than the context length/i, // LM Studio
  /context window exceeds limit/i, // MiniMax
  /exceeded model token limit/i, // Moonshot
  /context length is only \d+ tokens/i, // vLLM
  /input length.*exceeds.*context length/i, // vLLM
  /too many tokens/i,
  /request[_ ]too[_ ]large/i, // Anthropic 413
  /request entity too large/i, // HTTP 413
  /^4(00|13)\s*(status code)?\s*\(no body\)/i, // Cerebras, Mistral
]

const AUTH_PATTERN =
  /invalid[\s_-]*(x-)?api[\s_-]*key|incorrect api key|api key not valid|authentication_error|permission_error|unauthorized/i

const RETRYABLE_STREAM_TYPES = new Set([
  "overloaded_error",
  "rate_limit_error",
  "too_many_requests",
  "api_error",
  "server_error",
  "service_unavailable",
])
const AUTH_STREAM_TYPES = new Set(["authentication_error", "permission_error"])
// "Request rate increased too quickly" is Alibaba's burst rate limit.
const RETRYABLE_MESSAGE =
  /overloaded|rate limit|rate increased too quickly|temporarily unavailable|try again later/i

const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
])
const CONNECTION_MESSAGE = /socket hang up|ECONNRESET/i

/** How deep to follow `cause` / `lastError` chains; real chains are 2-3 long, cycles are possible. */
const MAX_DEPTH = 5

/**
 * Whether a provider message says the prompt did not fit the model's window. A 413 always does;
 * a 429 or 5xx never does, even when its text mentions tokens (rate limits count tokens too).
 */
export function isContextOverflow(message: string, statusCode?: number): boolean {
  if (statusCode === 413) return true
  if (statusCode === 429 || (statusCode !== undefined && statusCode >= 500)) return false
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(message))
}

/**
 * Turns anything a model call threw (or a stream's `error` part carried) into the serialised
 * error stored on the assistant message. Never throws.
 */
export function fromError(error: unknown, context: { providerID: string }): AssistantError {
  return classify(error, context.providerID, 0)
}

function classify(error: unknown, providerID: string, depth: number): AssistantError {
  if (isNamedError(error)) {
    const stored = AssistantError.safeParse(error.toObject())
    // The package's own errors (a rejected question, a missing session) are no provider's: their
    // `data` must not be read as a provider error body.
    return stored.success ? stored.data : unknown(String(error))
  }
  if (isAbort(error)) {
    return new AbortedError({ message: messageOf(error) || "The operation was aborted" }).toObject()
  }
  if (depth < MAX_DEPTH) {
    // The AI SDK wraps the provider's own error; classify that instead of the wrapper.
    if (RetryError.isInstance(error)) return classify(error.lastError, providerID, depth + 1)
    if (NoOutputGeneratedError.isInstance(error) && error.cause !== undefined) {
      return classify(error.cause, providerID, depth + 1)
    }
  }
  if (LoadAPIKeyError.isInstance(error))
    return new AuthError({ providerID, message: error.message }).toObject()
  if (APICallError.isInstance(error)) return fromAPICallError(error, providerID)
  // ai 7 wraps a provider's mid-stream error object in an Error whose `data` is that object.
  const wrapped = error instanceof Error ? (error as { data?: unknown }).data : undefined
  if (wrapped !== undefined) {
    const classified = fromStreamError(wrapped, providerID)
    if (classified) return classified
  }
  if (error instanceof Error) return fromPlainError(error, providerID)
  return fromStreamError(error, providerID) ?? unknown(stringify(error))
}

function fromAPICallError(error: APICallError, providerID: string): AssistantError {
  const message = apiMessage(error)
  const status = error.statusCode
  const text = `${message}\n${error.responseBody ?? ""}`
  const body = streamErrorOf(error.responseBody)
  // Proxies relay the provider's own error as JSON inside the message, whatever status they answer.
  const relayed = body ?? streamErrorOf(message)
  if (isContextOverflow(text, status) || body?.code === "context_length_exceeded") {
    return new ContextOverflowError({
      message,
      ...(error.responseBody !== undefined && { responseBody: error.responseBody }),
    }).toObject()
  }
  const serverSide = status !== undefined && (status === 429 || status >= 500)
  if (status === 401 || status === 403 || (!serverSide && AUTH_PATTERN.test(text))) {
    return new AuthError({ providerID, message }).toObject()
  }
  return new APIError({
    message,
    ...(status !== undefined && { statusCode: status }),
    isRetryable: error.isRetryable || (relayed !== undefined && isTransient(relayed)),
    ...(error.responseHeaders !== undefined && { responseHeaders: error.responseHeaders }),
    ...(error.responseBody !== undefined && { responseBody: error.responseBody }),
    ...(error.url ? { metadata: { url: error.url } } : {}),
  }).toObject()
}

function fromPlainError(error: Error, providerID: string): AssistantError {
  const code = connectionCode(error)
  if (code !== undefined) {
    const message = error.message.includes(code) ? error.message : `${error.message} (${code})`
    return new APIError({ message, isRetryable: true, metadata: { code } }).toObject()
  }
  if (error.name === "TimeoutError") {
    return new APIError({ message: error.message || "The request timed out", isRetryable: true }).toObject()
  }
  if (isContextOverflow(error.message)) return new ContextOverflowError({ message: error.message }).toObject()
  // A provider error (typed, as JSON) that a client wrapped in a plain Error's message.
  const relayed = streamErrorOf(error.message)
  if (relayed?.type !== undefined || relayed?.code !== undefined) {
    const classified = fromStreamError(error.message, providerID)
    if (classified) return classified
  }
  return unknown(String(error))
}

type StreamError = { type?: string; code?: string; message?: string; body: string }

/**
 * A provider error that arrived as data rather than as an HTTP failure: a stream's `error` part
 * (`{ type: "overloaded_error", message }`), the whole error chunk (`{ type: "error", error: {...} }`),
 * an OpenAI-style `{ error: { code, message } }`, or the same as a JSON string.
 */
function fromStreamError(value: unknown, providerID: string): AssistantError | undefined {
  const error = streamErrorOf(value)
  if (!error) return typeof value === "string" && isContextOverflow(value) ? overflow(value) : undefined
  const message = error.message ?? error.type ?? error.code ?? "Provider error"
  if (error.code === "context_length_exceeded" || isContextOverflow(message)) {
    return new ContextOverflowError({ message, responseBody: error.body }).toObject()
  }
  if (AUTH_STREAM_TYPES.has(error.type ?? "") || error.code === "invalid_api_key") {
    return new AuthError({ providerID, message }).toObject()
  }
  return new APIError({ message, isRetryable: isTransient(error), responseBody: error.body }).toObject()
}

/** Whether a provider's error names a failure on its side that may pass: overload, rate limit, server error. */
function isTransient(error: StreamError): boolean {
  return (
    RETRYABLE_STREAM_TYPES.has(error.type ?? "") ||
    error.code === "server_error" ||
    (error.code?.includes("rate_limit") ?? false) ||
    RETRYABLE_MESSAGE.test(error.message ?? "")
  )
}

function streamErrorOf(value: unknown, depth = 0): StreamError | undefined {
  const root = typeof value === "string" ? jsonIn(value) : value
  if (!isRecord(root)) return undefined
  const raw = isRecord(root.error) ? root.error : root
  // OpenAI's Responses stream can carry its whole error chunk, as JSON, in an error's message.
  const nested =
    typeof raw.message === "string" && depth < MAX_DEPTH ? streamErrorOf(raw.message, depth + 1) : undefined
  if (nested) return nested
  const type = typeof raw.type === "string" && raw.type !== "error" ? raw.type : undefined
  const code =
    typeof raw.code === "string" ? raw.code : typeof raw.code === "number" ? String(raw.code) : undefined
  const message = typeof raw.message === "string" && raw.message !== "" ? raw.message : undefined
  if (type === undefined && code === undefined && message === undefined) return undefined
  return { type, code, message, body: stringify(root) }
}

function apiMessage(error: APICallError): string {
  if (error.message.trim() !== "") return error.message
  const fromBody = streamErrorOf(error.responseBody)?.message
  if (fromBody) return fromBody
  if (error.responseBody) return error.responseBody
  return error.statusCode !== undefined ? `HTTP ${error.statusCode}` : "Unknown API error"
}

function isAbort(error: unknown): boolean {
  const name = isRecord(error) ? error.name : undefined
  return name === "AbortError" || name === "ResponseAborted"
}

// Node reports resets as a `code` on the error or on its cause (undici's "fetch failed" wraps a
// SocketError), sometimes only in the message.
function connectionCode(error: unknown): string | undefined {
  let current = error
  for (let depth = 0; depth < MAX_DEPTH && isRecord(current); depth++) {
    const code = current.code
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return code
    const message = current.message
    if (typeof message === "string" && CONNECTION_MESSAGE.test(message)) return "ECONNRESET"
    current = current.cause
  }
  return undefined
}

function overflow(message: string): AssistantError {
  return new ContextOverflowError({ message }).toObject()
}

function unknown(message: string): AssistantError {
  return new UnknownError({ message }).toObject()
}

function messageOf(error: unknown): string {
  return isRecord(error) && typeof error.message === "string" ? error.message : ""
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    // Cycles and BigInts cannot be JSON; a readable fallback beats losing the error.
    return String(value)
  }
}

// Clients often put words around the provider's JSON body: `Bad Request: {"error":{...}}`.
function jsonIn(text: string): unknown {
  const start = text.indexOf("{")
  const end = text.lastIndexOf("}")
  return start === -1 || end < start ? undefined : parseJson(text.slice(start, end + 1))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}
