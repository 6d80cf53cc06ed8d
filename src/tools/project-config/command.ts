import { z } from "zod"
import type { CommandInfo } from "../../command/info.js"
import { ProjectConfigError } from "./errors.js"
import { type MarkdownSource, modelOf, readFields } from "./fields.js"

/**
 * A command file's front matter: OpenCode's keys. Claude Code's `argument-hint` and
 * `allowed-tools` are accepted and ignored (a command here cannot carry permissions of its own),
 * as is any other key.
 */
export const CommandFrontMatter = z.object({
  description: z.string().optional(),
  agent: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  subtask: z.boolean().optional(),
})

/** The command a file describes: its front matter, and its trimmed body as the template. */
export function toCommand(data: Record<string, unknown>, body: string, source: MarkdownSource): CommandInfo {
  const fields = readFields(CommandFrontMatter, data, source.file)
  const template = body.trim()
  if (template === "")
    throw ProjectConfigError.of(source.file, "the file has no text after its front matter", "template")
  const model = modelOf(fields.model, source)
  return {
    template,
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.agent === undefined ? {} : { agent: fields.agent }),
    ...(model === undefined ? {} : { model }),
    ...(fields.subtask === undefined ? {} : { subtask: fields.subtask }),
  }
}
