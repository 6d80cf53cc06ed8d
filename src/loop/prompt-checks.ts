import type { AgentInfo } from "../agent/info.js"
import { InvalidInputError } from "../error/invalid-input.js"
import { timestamp } from "../id/identifier.js"
import { maxID, sessionFloor } from "../session/floor.js"
import type { Storage } from "../storage/port.js"
import { isStartable } from "../task/description.js"
import { NotASubagentError } from "../task/errors.js"

/**
 * A caller-chosen message ID must be new and sort after the session's history: an existing ID
 * would overwrite that message (an assistant's, with its cost), and an earlier one would hide
 * the prompt behind the answers it should get. Nor may it be another session's: IDs are unique
 * across sessions (forks copy with new ones). Storage cannot look a message up by ID alone, so
 * that is checked against the recent messages this runtime saw (`ownerOf`) and by time: an ID
 * made before the session was cannot have been made for it (newMessageID never makes one).
 */
export async function assertNewMessageID(
  storage: Storage,
  sessionID: string,
  messageID: string,
  ownerOf: (messageID: string) => string | undefined = () => undefined,
): Promise<void> {
  const owner = ownerOf(messageID)
  if (owner !== undefined && owner !== sessionID)
    throw invalid("messageID", `message ${messageID} belongs to another session, ${owner}`)
  if (await storage.getMessage(sessionID, messageID))
    throw invalid("messageID", `message ${messageID} already exists in session ${sessionID}`)
  if (timestamp(messageID) < timestamp(sessionID))
    throw invalid(
      "messageID",
      `${messageID} was made before session ${sessionID} was created, so it is not one of its IDs (use session.newMessageID)`,
    )
  const floor = await sessionFloor(storage, sessionID)
  if (floor !== undefined && maxID(floor, messageID) === floor)
    throw invalid("messageID", `${messageID} does not sort after the session's newest ID ${floor}`)
}

/** Hidden agents (titles, summaries, compaction) and sub-agents are started by the runtime, not prompted. */
export function assertPromptable(agent: AgentInfo): void {
  if (agent.hidden) throw invalid("agent", `agent "${agent.name}" is internal and cannot be prompted`)
  if (agent.mode === "subagent")
    throw invalid("agent", `agent "${agent.name}" is a sub-agent; prompt a primary agent, which can start it`)
}

/** Who the task tool and subtask parts may start: sub-agents and agents for both roles. */
export function assertStartable(agent: AgentInfo): void {
  if (!isStartable(agent))
    throw new NotASubagentError({
      agent: agent.name,
      message: `agent "${agent.name}" is ${agent.hidden ? "internal" : "a primary agent"}, not a sub-agent`,
    })
}

function invalid(path: string, message: string): InvalidInputError {
  return new InvalidInputError({ message: `Invalid ${path}: ${message}`, issues: [{ path, message }] })
}
