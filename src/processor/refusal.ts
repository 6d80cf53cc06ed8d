import { DeniedError, RejectedError as PermissionRejectedError } from "../permission/errors.js"
import { RejectedError as QuestionRejectedError } from "../question/errors.js"

/** Who refused a tool call, read from the error it ended with; undefined when it was not refused. */
export function refusedBy(error: unknown): "user" | "host" | "rule" | undefined {
  if (DeniedError.isInstance(error)) return "rule"
  if (!PermissionRejectedError.isInstance(error) && !QuestionRejectedError.isInstance(error)) return undefined
  const { reason } = error.data
  // A cancel or a close ends the turn on its own: nobody refused the call.
  if (reason === "aborted" || reason === "closed") return undefined
  return reason === "user" ? "user" : "host"
}

/**
 * Whether the error ends the turn: a user's or the host's "no" to a permission, a dismissed
 * question (OpenCode's behaviour), unless the agent goes on after a rejection. A denial by a
 * rule, or a "no" with feedback, always goes back to the model.
 */
export function stopsTurn(error: unknown, rejection: "stop" | "continue" = "stop"): boolean {
  const rejected = PermissionRejectedError.isInstance(error) || QuestionRejectedError.isInstance(error)
  if (!rejected) return false
  return rejection === "stop" || error.data.reason === "aborted" || error.data.reason === "closed"
}
