import { InvalidInputError } from "../error/invalid-input.js"
import type { NamedError } from "../error/named-error.js"
import {
  AbortedError,
  APIError,
  type AssistantError,
  AuthError,
  ContextOverflowError,
  OutputLengthError,
  StructuredOutputError,
  UnknownError,
} from "./errors.js"
import type { Assistant, WithParts } from "./info.js"
import type { Part } from "./part.js"

/** A final assistant message that finished without an error. */
export type Answer = { info: Assistant; parts: Part[] }

/**
 * `prompt` resolves even when the turn failed: the failure is stored on the final message as
 * `info.error`, so the session shows it after a reload, and joined callers all see it. Where a
 * failed turn should throw, pass the result through this: it throws the stored error as an
 * instance of its named class (`MessageV2.APIError.isInstance(error)`), and otherwise returns
 * what it was given (a turn result stays one), typed as an assistant's answer.
 */
export function throwIfFailed<T extends WithParts>(message: T): T & Answer {
  const { info } = message
  if (info.role !== "assistant") {
    throw new InvalidInputError({
      message: `Expected an assistant message, got a ${info.role} message (a prompt with noReply?)`,
      issues: [{ path: "info.role", message: `expected "assistant", got "${info.role}"` }],
    })
  }
  if (info.error) throw toNamedError(info.error)
  return message as T & Answer
}

function toNamedError(error: AssistantError): NamedError<string, object> {
  switch (error.name) {
    case "AuthError":
      return new AuthError(error.data)
    case "APIError":
      return new APIError(error.data)
    case "OutputLengthError":
      return new OutputLengthError(error.data)
    case "AbortedError":
      return new AbortedError(error.data)
    case "ContextOverflowError":
      return new ContextOverflowError(error.data)
    case "UnknownError":
      return new UnknownError(error.data)
    case "StructuredOutputError":
      return new StructuredOutputError(error.data)
  }
}
