import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const UnknownCommandData = z.object({
  command: z.string(),
  /** Every command the runtime was given. */
  known: z.array(z.string()),
  message: z.string(),
})

/** `session.command` was asked for a command the runtime was not given. */
export class UnknownCommandError extends NamedError<
  "UnknownCommandError",
  z.infer<typeof UnknownCommandData>
> {
  static override readonly errorName = "UnknownCommandError"
  static readonly Schema = z.object({ name: z.literal("UnknownCommandError"), data: UnknownCommandData })

  static of(command: string, known: string[]): UnknownCommandError {
    return new UnknownCommandError({
      command,
      known,
      message: `Unknown command "${command}". Known commands: ${known.join(", ") || "none"}`,
    })
  }
}
