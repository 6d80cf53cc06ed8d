import { isNamedError } from "../error/named-error.js"
import { AssistantError, UnknownError } from "../message/errors.js"
import type { Runtime } from "../runtime/runtime.js"

type PromptInput = Parameters<Runtime["session"]["prompt"]>[0]

/**
 * Starts a prompt and resolves once its user message is stored; the run goes on without the
 * caller. A refusal before that (unknown agent or model, a closed runtime) rejects, so that the
 * route can answer it; a failure after it goes to `onLateFailure`, never unhandled.
 *
 * Without a caller-chosen messageID, the first user message stored in the session counts: with
 * concurrent prompts to one session that may be another's, which only makes this one's
 * refusals late failures instead of answers.
 */
export function startPrompt(
  runtime: Runtime,
  input: PromptInput,
  onLateFailure: (error: unknown) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      stopWatching()
      outcome()
    }
    const stopWatching = runtime.events.on("message.updated", ({ properties: { sessionID, info } }) => {
      if (sessionID !== input.sessionID || info.role !== "user") return
      if (input.messageID === undefined || info.id === input.messageID) settle(resolve)
    })
    runtime.session.prompt(input).then(
      () => settle(resolve),
      (error: unknown) => {
        if (settled) onLateFailure(error)
        else settle(() => reject(error))
      },
    )
  })
}

/** An error as `session.error` carries it: one of the assistant errors, else an UnknownError. */
export function asAssistantError(error: unknown): AssistantError {
  const parsed = AssistantError.safeParse(isNamedError(error) ? error.toObject() : undefined)
  if (parsed.success) return parsed.data
  const message = error instanceof Error ? error.message : String(error)
  return new UnknownError({ message }).toObject()
}
