import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const ShellParserData = z.object({ message: z.string() })

/** The bash grammar could not be loaded, so no command can be checked against the rules: none runs. */
export class ShellParserError extends NamedError<"ShellParserError", z.infer<typeof ShellParserData>> {
  static override readonly errorName = "ShellParserError"
  static readonly Schema = z.object({ name: z.literal("ShellParserError"), data: ShellParserData })
}

const WorkdirData = z.object({ workdir: z.string(), message: z.string() })

/** The `workdir` the model gave is not a directory; the message tells it so it can retry. */
export class WorkdirError extends NamedError<"BashWorkdirError", z.infer<typeof WorkdirData>> {
  static override readonly errorName = "BashWorkdirError"
  static readonly Schema = z.object({ name: z.literal("BashWorkdirError"), data: WorkdirData })

  static notADirectory(workdir: string): WorkdirError {
    return new WorkdirError({
      workdir,
      message: `The workdir ${workdir} is not an existing directory. Call bash again with a directory that exists.`,
    })
  }
}
