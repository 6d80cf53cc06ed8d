import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { ModelRef } from "../message/part.js"

/** What `session.shell` takes: the command line to run in a session, as the user. */
export const ShellInput = z.strictObject({
  sessionID: id("session"),
  /** The command line, run with the runtime's `bash` tool. */
  command: z.string().min(1),
  /** The agent the messages are recorded under; default the runtime's default agent. */
  agent: z.string().min(1).optional(),
  /** The model the messages name; default the agent's, else the one the session last used, else the provider's. */
  model: ModelRef.optional(),
  /** The user message's ID, as in `session.prompt`. */
  messageID: id("message").optional(),
})
export type ShellInput = z.input<typeof ShellInput>
