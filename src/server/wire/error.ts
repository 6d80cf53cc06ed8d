import { z } from "zod"
import {
  AbortedError,
  APIError,
  type AssistantError,
  AuthError,
  ContextOverflowError,
  OutputLengthError,
  StructuredOutputError,
  UnknownError,
} from "../../message/errors.js"

/** OpenCode's names for the errors a turn can end with, where they differ from the library's. */
const wireNames = {
  AuthError: "ProviderAuthError",
  OutputLengthError: "MessageOutputLengthError",
  AbortedError: "MessageAbortedError",
} as const

type Renamed<E extends AssistantError> = E extends { name: keyof typeof wireNames }
  ? { name: (typeof wireNames)[E["name"]]; data: E["data"] }
  : E
export type WireAssistantError = Renamed<AssistantError>

const renamed = <N extends string, D extends z.ZodType>(name: N, schema: { shape: { data: D } }) =>
  z.object({ name: z.literal(name), data: schema.shape.data })

export const WireAssistantError = z.discriminatedUnion("name", [
  renamed(wireNames.AuthError, AuthError.Schema),
  APIError.Schema,
  renamed(wireNames.OutputLengthError, OutputLengthError.Schema),
  renamed(wireNames.AbortedError, AbortedError.Schema),
  ContextOverflowError.Schema,
  UnknownError.Schema,
  StructuredOutputError.Schema,
])

export function toWireError(error: AssistantError): WireAssistantError {
  const name = wireNames[error.name as keyof typeof wireNames]
  return (name ? { ...error, name } : error) as WireAssistantError
}
