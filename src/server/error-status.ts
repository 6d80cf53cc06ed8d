import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import { UnknownAgentError } from "../agent/errors.js"
import { UnknownCommandError } from "../command/errors.js"
import { InvalidInputError } from "../error/invalid-input.js"
import { isNamedError, type SerializedError } from "../error/named-error.js"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import { UnknownModelError } from "../provider/errors.js"
import { BusyError } from "../session/errors.js"
import { ShellUnavailableError } from "../shell/errors.js"
import { NotASubagentError } from "../task/errors.js"
import { ForbiddenHostError, PayloadTooLargeError, UnauthorizedError } from "./errors.js"

/**
 * The HTTP status of each named error a route can end with. The caller's mistakes are 4xx;
 * any named error not listed is 500 with its name and data, anything else a bare UnknownError.
 */
export const errorStatus: Readonly<Record<string, ContentfulStatusCode>> = Object.freeze({
  [InvalidInputError.errorName]: 400,
  [UnknownCommandError.errorName]: 400,
  [NotASubagentError.errorName]: 400,
  [UnknownAgentError.errorName]: 400,
  [UnknownModelError.errorName]: 400,
  [ShellUnavailableError.errorName]: 400,
  [UnauthorizedError.errorName]: 401,
  [ForbiddenHostError.errorName]: 403,
  [NotFoundError.errorName]: 404,
  [BusyError.errorName]: 409,
  [PayloadTooLargeError.errorName]: 413,
  [RuntimeClosedError.errorName]: 503,
})

/** What a failed request answers: the error's `{ name, data }`, never a stack. */
export function toErrorBody(error: unknown): { status: ContentfulStatusCode; body: SerializedError } {
  if (isNamedError(error)) return { status: errorStatus[error.name] ?? 500, body: error.toObject() }
  return { status: 500, body: { name: "UnknownError", data: { message: messageOf(error) } } }
}

export function errorResponse(c: Context, error: unknown): Response {
  const { status, body } = toErrorBody(error)
  return c.json(body, status)
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message
  return "Internal server error"
}
