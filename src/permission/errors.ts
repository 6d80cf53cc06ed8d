import { z } from "zod"
import { NamedError } from "../error/named-error.js"
import { Rule } from "../schema/permission.js"

const REJECTED = "The user rejected permission to use this specific tool call."
const REJECTED_BY_HOST = "The application rejected permission to use this specific tool call."

const RejectedData = z.object({
  message: z.string(),
  /**
   * Why: the user said no (`permission.reply`), the host's `onPermission` said no, no answer came
   * in time, the call or the runtime ended, or the handler failed.
   */
  reason: z.enum(["user", "host", "timeout", "aborted", "closed", "handler"]),
})

/** The human (or a timeout) said no. Stops the loop. */
export class RejectedError extends NamedError<"PermissionRejectedError", z.infer<typeof RejectedData>> {
  static override readonly errorName = "PermissionRejectedError"
  static readonly Schema = z.object({ name: z.literal("PermissionRejectedError"), data: RejectedData })

  static byUser(): RejectedError {
    return new RejectedError({ message: REJECTED, reason: "user" })
  }

  static byHost(): RejectedError {
    return new RejectedError({ message: REJECTED_BY_HOST, reason: "host" })
  }

  static timedOut(timeoutMs: number): RejectedError {
    return new RejectedError({
      message: `${REJECTED} The request timed out after ${timeoutMs} ms without an answer.`,
      reason: "timeout",
    })
  }

  static aborted(): RejectedError {
    return new RejectedError({ message: `${REJECTED} The tool call was cancelled.`, reason: "aborted" })
  }

  static closed(): RejectedError {
    return new RejectedError({ message: `${REJECTED} The runtime was closed.`, reason: "closed" })
  }

  static handlerFailed(cause: unknown): RejectedError {
    const detail = cause instanceof Error ? cause.message : String(cause)
    return new RejectedError(
      { message: `${REJECTED} The permission handler failed: ${detail}`, reason: "handler" },
      { cause },
    )
  }
}

const CorrectedData = z.object({ message: z.string(), feedback: z.string() })

/** The human said no and said what to do instead. Fed back to the model; the loop goes on. */
export class CorrectedError extends NamedError<"PermissionCorrectedError", z.infer<typeof CorrectedData>> {
  static override readonly errorName = "PermissionCorrectedError"
  static readonly Schema = z.object({ name: z.literal("PermissionCorrectedError"), data: CorrectedData })

  static withFeedback(feedback: string): CorrectedError {
    return new CorrectedError({
      message: `${REJECTED} The user gave this feedback: ${feedback}`,
      feedback,
    })
  }
}

const DeniedData = z.object({ message: z.string(), rules: z.array(Rule) })

/** A configured rule forbids the call. Fed back to the model; the loop goes on. */
export class DeniedError extends NamedError<"PermissionDeniedError", z.infer<typeof DeniedData>> {
  static override readonly errorName = "PermissionDeniedError"
  static readonly Schema = z.object({ name: z.literal("PermissionDeniedError"), data: DeniedData })

  static byRules(rules: Rule[]): DeniedError {
    const named = rules
      .map((rule) => `${rule.permission} ${JSON.stringify(rule.pattern)} -> ${rule.action}`)
      .join("; ")
    return new DeniedError({
      message: `A configured permission rule prevents this specific tool call (${named}). Do not retry it; find another way or ask the user.`,
      rules,
    })
  }

  /** A headless runtime's policy turned "ask" into "deny". */
  static nonInteractive(permission: string, patterns: string[]): DeniedError {
    return new DeniedError({
      message: `Permission "${permission}" for ${patterns.map((pattern) => JSON.stringify(pattern)).join(", ")} needs the user's approval, and no one can answer in this non-interactive session. Do not retry it; find another way.`,
      rules: patterns.map((pattern) => ({ permission, pattern, action: "deny" as const })),
    })
  }
}
