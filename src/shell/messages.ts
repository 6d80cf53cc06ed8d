import type { Assistant, User, WithParts } from "../message/info.js"
import type { ModelRef, ToolPart, ToolStateRunning } from "../message/part.js"

/** The text of the user message a shell command is recorded under, as OpenCode writes it. */
export const SHELL_USER_TEXT = "The following tool was executed by the user"

/** A tool part while its call runs. */
export type RunningToolPart = ToolPart & { state: ToolStateRunning }

type Ids = { sessionID: string; newPartID(messageID: string): string }

/** The user message: the agent and model, and one synthetic text part saying what follows. */
export function userMessage(at: Ids & { messageID: string; agent: string; model: ModelRef }): WithParts {
  const { sessionID, messageID } = at
  const info: User = {
    id: messageID,
    sessionID,
    role: "user",
    time: { created: Date.now() },
    agent: at.agent,
    model: at.model,
  }
  const text = { id: at.newPartID(messageID), sessionID, messageID, type: "text" as const }
  return { info, parts: [{ ...text, text: SHELL_USER_TEXT, synthetic: true }] }
}

/**
 * The answer: no model was called, so it costs nothing; its one part is the bash call, running
 * with the command as its input.
 */
export function shellAnswer(
  at: Ids & {
    messageID: string
    parentID: string
    agent: string
    model: ModelRef
    directory: string
    command: string
  },
): { info: Assistant; part: RunningToolPart } {
  const { sessionID, messageID } = at
  const info: Assistant = {
    id: messageID,
    sessionID,
    role: "assistant",
    time: { created: Date.now() },
    parentID: at.parentID,
    agent: at.agent,
    providerID: at.model.providerID,
    modelID: at.model.modelID,
    path: { cwd: at.directory, root: at.directory },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  }
  const partID = at.newPartID(messageID)
  const part: RunningToolPart = {
    id: partID,
    sessionID,
    messageID,
    type: "tool",
    // A ULID, as OpenCode's shell call IDs are: the part ID's body is one.
    callID: partID.slice(partID.indexOf("_") + 1),
    tool: "bash",
    state: { status: "running", input: { command: at.command }, time: { start: Date.now() } },
  }
  return { info, part }
}
