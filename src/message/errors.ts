import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const AuthErrorData = z.object({ providerID: z.string(), message: z.string() })
/**
 * The provider refused the credentials (a missing or wrong API key). Stored on the assistant message
 * the turn ended with; not retried.
 */
export class AuthError extends NamedError<"AuthError", z.infer<typeof AuthErrorData>> {
  static override readonly errorName = "AuthError"
  static readonly Schema = z.object({ name: z.literal("AuthError"), data: AuthErrorData })
}

const APIErrorData = z.object({
  message: z.string(),
  statusCode: z.number().optional(),
  isRetryable: z.boolean(),
  responseHeaders: z.record(z.string(), z.string()).optional(),
  responseBody: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
})
/**
 * The provider's API answered with an error. `isRetryable` (rate limits, overload, 5xx) tells the
 * loop to retry with backoff; otherwise the turn ends with it on the assistant message.
 */
export class APIError extends NamedError<"APIError", z.infer<typeof APIErrorData>> {
  static override readonly errorName = "APIError"
  static readonly Schema = z.object({ name: z.literal("APIError"), data: APIErrorData })
}

const OutputLengthErrorData = z.object({ message: z.string().optional() })
/** The model stopped because it reached its output token limit before finishing its answer. */
export class OutputLengthError extends NamedError<
  "OutputLengthError",
  z.infer<typeof OutputLengthErrorData>
> {
  static override readonly errorName = "OutputLengthError"
  static readonly Schema = z.object({ name: z.literal("OutputLengthError"), data: OutputLengthErrorData })
}

const AbortedErrorData = z.object({ message: z.string() })
/** The turn was cancelled (`runtime.session.cancel` or the caller's abort signal) before it ended. */
export class AbortedError extends NamedError<"AbortedError", z.infer<typeof AbortedErrorData>> {
  static override readonly errorName = "AbortedError"
  static readonly Schema = z.object({ name: z.literal("AbortedError"), data: AbortedErrorData })
}

const ContextOverflowErrorData = z.object({ message: z.string(), responseBody: z.string().optional() })
/**
 * The provider refused the request as longer than the model's context window. With automatic
 * compaction on, the loop compacts and replays the request instead (docs/compaction.md); otherwise
 * the turn ends with this error.
 */
export class ContextOverflowError extends NamedError<
  "ContextOverflowError",
  z.infer<typeof ContextOverflowErrorData>
> {
  static override readonly errorName = "ContextOverflowError"
  static readonly Schema = z.object({
    name: z.literal("ContextOverflowError"),
    data: ContextOverflowErrorData,
  })
}

const UnknownErrorData = z.object({ message: z.string() })
/** Any other failure of a turn, with its message: an error the provider classification did not know. */
export class UnknownError extends NamedError<"UnknownError", z.infer<typeof UnknownErrorData>> {
  static override readonly errorName = "UnknownError"
  static readonly Schema = z.object({ name: z.literal("UnknownError"), data: UnknownErrorData })
}

const StructuredOutputErrorData = z.object({ message: z.string(), retries: z.number().int().nonnegative() })
/**
 * A prompt asked for structured output (`format: { type: "json_schema" }`) and the model never
 * gave a valid one: it answered in plain text, or its answers failed the schema more than
 * `retries` times.
 */
export class StructuredOutputError extends NamedError<
  "StructuredOutputError",
  z.infer<typeof StructuredOutputErrorData>
> {
  static override readonly errorName = "StructuredOutputError"
  static readonly Schema = z.object({
    name: z.literal("StructuredOutputError"),
    data: StructuredOutputErrorData,
  })
}

/** The serialised `{ name, data }` form of an error stored on an assistant message. */
export const AssistantError = z.discriminatedUnion("name", [
  AuthError.Schema,
  APIError.Schema,
  OutputLengthError.Schema,
  AbortedError.Schema,
  ContextOverflowError.Schema,
  UnknownError.Schema,
  StructuredOutputError.Schema,
])
export type AssistantError = z.infer<typeof AssistantError>
