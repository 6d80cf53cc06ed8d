import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const DISMISSED = "The user dismissed this question."

const RejectedData = z.object({
  message: z.string(),
  reason: z.enum(["user", "timeout", "aborted", "closed", "handler", "non-interactive"]),
})

/** No answer will come: the user dismissed the question, or it timed out or was withdrawn. Stops the loop. */
export class RejectedError extends NamedError<"QuestionRejectedError", z.infer<typeof RejectedData>> {
  static override readonly errorName = "QuestionRejectedError"
  static readonly Schema = z.object({ name: z.literal("QuestionRejectedError"), data: RejectedData })

  static byUser(): RejectedError {
    return new RejectedError({ message: DISMISSED, reason: "user" })
  }

  static timedOut(timeoutMs: number): RejectedError {
    return new RejectedError({
      message: `${DISMISSED} It timed out after ${timeoutMs} ms without an answer.`,
      reason: "timeout",
    })
  }

  static aborted(): RejectedError {
    return new RejectedError({ message: `${DISMISSED} The tool call was cancelled.`, reason: "aborted" })
  }

  static closed(): RejectedError {
    return new RejectedError({ message: `${DISMISSED} The runtime was closed.`, reason: "closed" })
  }

  static handlerFailed(cause: unknown): RejectedError {
    const detail = cause instanceof Error ? cause.message : String(cause)
    return new RejectedError(
      { message: `${DISMISSED} The question handler failed: ${detail}`, reason: "handler" },
      { cause },
    )
  }

  static nonInteractive(): RejectedError {
    return new RejectedError({
      message:
        "No one can answer questions in this non-interactive session. Decide yourself, or stop and explain what you need.",
      reason: "non-interactive",
    })
  }
}
