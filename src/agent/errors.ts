import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const UnknownAgentData = z.object({
  name: z.string(),
  /** Every agent that does exist. */
  known: z.array(z.string()),
  message: z.string(),
})

/** An agent was asked for by a name that no built-in or configured agent has. */
export class UnknownAgentError extends NamedError<"UnknownAgentError", z.infer<typeof UnknownAgentData>> {
  static override readonly errorName = "UnknownAgentError"
  static readonly Schema = z.object({ name: z.literal("UnknownAgentError"), data: UnknownAgentData })

  static of(name: string, known: string[]): UnknownAgentError {
    return new UnknownAgentError({
      name,
      known,
      message: `Unknown agent "${name}". Known agents: ${known.join(", ") || "none"}`,
    })
  }
}

const InvalidDefaultAgentData = z.object({
  name: z.string(),
  reason: z.enum(["unknown", "subagent", "hidden"]),
  /** The agents that could be the default: neither sub-agents nor hidden. */
  primary: z.array(z.string()),
  message: z.string(),
})

/** The default agent must exist and be one the user can talk to: not a sub-agent, not hidden. */
export class InvalidDefaultAgentError extends NamedError<
  "InvalidDefaultAgentError",
  z.infer<typeof InvalidDefaultAgentData>
> {
  static override readonly errorName = "InvalidDefaultAgentError"
  static readonly Schema = z.object({
    name: z.literal("InvalidDefaultAgentError"),
    data: InvalidDefaultAgentData,
  })

  static of(
    name: string,
    reason: "unknown" | "subagent" | "hidden",
    primary: string[],
  ): InvalidDefaultAgentError {
    const problem = {
      unknown: "does not exist",
      subagent: "is a sub-agent",
      hidden: "is hidden",
    }[reason]
    return new InvalidDefaultAgentError({
      name,
      reason,
      primary,
      message: `Default agent "${name}" ${problem}. Primary agents: ${primary.join(", ") || "none"}`,
    })
  }
}
