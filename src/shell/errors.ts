import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const Data = z.object({ message: z.string() })

/** `session.shell` was called on a runtime without a `bash` tool to run the command with. */
export class ShellUnavailableError extends NamedError<"ShellUnavailableError", z.infer<typeof Data>> {
  static override readonly errorName = "ShellUnavailableError"
  static readonly Schema = z.object({ name: z.literal("ShellUnavailableError"), data: Data })

  static of(): ShellUnavailableError {
    return new ShellUnavailableError({
      message:
        'session.shell runs commands with the runtime\'s "bash" tool, and this runtime has none: ' +
        'add the coding tools (`codingPreset({ directory })` or `codingTools()` from "agentloop-sdk/tools") or a tool with id "bash"',
    })
  }
}
