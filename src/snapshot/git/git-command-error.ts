import { z } from "zod"
import { NamedError } from "../../error/named-error.js"
import { truncate } from "../../error/quote.js"

const Data = z.object({
  message: z.string(),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  stderr: z.string(),
})

// Enough of git's complaint to act on, without echoing a path list of thousands of names.
const STDERR_LIMIT = 1000

/**
 * A `git` command the snapshot ran failed for a reason other than a missing `git`, an
 * unwritable data directory or an unknown state (those are SnapshotUnavailableError): a disk
 * that filled up, a file git could not read. `data.stderr` holds what git said.
 */
export class GitCommandError extends NamedError<"GitCommandError", z.infer<typeof Data>> {
  static override readonly errorName = "GitCommandError"
  static readonly Schema = z.object({ name: z.literal("GitCommandError"), data: Data })

  static of(command: string, exitCode: number | null, stderr: string): GitCommandError {
    const said = truncate(stderr.trim(), STDERR_LIMIT)
    const how = exitCode === null ? "was killed" : `exited with code ${exitCode}`
    return new GitCommandError({
      message: `git ${command} ${how}${said ? `: ${said}` : ""}`,
      command,
      exitCode,
      stderr: said,
    })
  }
}
