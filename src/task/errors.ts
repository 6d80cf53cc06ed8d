import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const Data = z.object({ agent: z.string(), message: z.string() })

/** A task or subtask named an agent that cannot be started as a sub-agent. */
export class NotASubagentError extends NamedError<"NotASubagentError", z.infer<typeof Data>> {
  static override readonly errorName = "NotASubagentError"
  static readonly Schema = z.object({ name: z.literal("NotASubagentError"), data: Data })
}
