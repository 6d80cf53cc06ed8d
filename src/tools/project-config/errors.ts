import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const ProjectConfigData = z.object({
  message: z.string(),
  /** The markdown file, as an absolute path. */
  file: z.string(),
  /** The front matter key whose value is wrong (`temperature`), or `name` / `template`; absent when the YAML itself is. */
  field: z.string().optional(),
})

/**
 * A project's markdown agent or command cannot be used: its front matter is not YAML, a known
 * key has a value of the wrong kind, its name cannot be an agent's or a command's, or a command
 * has no template. Names the file and, when one is at fault, the field.
 */
export class ProjectConfigError extends NamedError<"ProjectConfigError", z.infer<typeof ProjectConfigData>> {
  static override readonly errorName = "ProjectConfigError"
  static readonly Schema = z.object({ name: z.literal("ProjectConfigError"), data: ProjectConfigData })

  static of(file: string, problem: string, field?: string, cause?: unknown): ProjectConfigError {
    const message = field === undefined ? `${file}: ${problem}` : `${file}: invalid ${field}: ${problem}`
    return new ProjectConfigError({ message, file, ...(field === undefined ? {} : { field }) }, { cause })
  }
}
