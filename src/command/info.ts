import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { ModelRef } from "../message/part.js"

/**
 * A slash command: a prompt template run on demand, `/review src/a.ts`. Strict, so a misspelt
 * key in a command's definition is reported instead of silently ignored.
 */
export const Info = z.strictObject({
  /** The prompt; `$1..$n` and `$ARGUMENTS` take the command's arguments (see `expand`). */
  template: z.string().min(1),
  /** What the command does; also the description of its subtask when it runs as one. */
  description: z.string().optional(),
  /** The agent the command runs with; by default the caller's, else the runtime's default. */
  agent: z.string().min(1).optional(),
  /** The model the command runs on; by default the caller's, else the prompt's usual choice. */
  model: ModelRef.optional(),
  /**
   * Run the command as a sub-agent's task in a child session. `true` always does; `false`
   * never does; unset does when the command's agent is a sub-agent.
   */
  subtask: z.boolean().optional(),
})
export type Info = z.infer<typeof Info>

/** `Info` under the name files outside the `Command` namespace's folder import it by. */
export { Info as CommandInfo }

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
