import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { ModelRef } from "../message/part.js"

/** What `session.command` takes: which command to run in which session, with what arguments. */
export const CommandInput = z.strictObject({
  sessionID: id("session"),
  /** The command's name, without the slash. */
  command: z.string().min(1),
  /** The text after the command's name; fills the template's placeholders. */
  arguments: z.string().optional(),
  /** The caller's agent: used when the command names none, and the parent of a subtask. */
  agent: z.string().min(1).optional(),
  /** The caller's model: used when the command names none. */
  model: ModelRef.optional(),
  /** The user message's ID, as in `session.prompt`. */
  messageID: id("message").optional(),
})
export type CommandInput = z.input<typeof CommandInput>
