import { z } from "zod"
import { UnknownAgentError } from "../agent/errors.js"
import type { AgentInfo } from "../agent/info.js"
import { parseInput } from "../error/invalid-input.js"
import type { PromptInput, PromptPart } from "../schema/prompt.js"
import type { TurnResult } from "../schema/turn-result.js"
import { UnknownCommandError } from "./errors.js"
import { expand } from "./expand.js"
import { CommandInput, Info } from "./info.js"

/** `Result`: what `session.prompt` resolves with (the runtime's TurnResult). */
export type CommandRunnerDeps<Result = TurnResult> = {
  /** The runtime's commands, by name. */
  commands: Record<string, Info>
  /** `session.prompt`: stores the user message and runs the loop. */
  prompt(input: PromptInput): Promise<Result>
  /** The runtime's default agent's name. */
  defaultAgent(): string
  /** The runtime's agents, by name; tells whether a command's agent is a sub-agent. */
  agents: Record<string, AgentInfo>
}

export type CommandRunner<Result = TurnResult> = { command(input: CommandInput): Promise<Result> }

const Commands = z.record(z.string().min(1), Info)

/**
 * `session.command`: expands a command's template and prompts the session with it, as a text
 * part for the command's agent or, for a subtask command, as a subtask part the caller's agent
 * hands to a sub-agent. The command's own agent and model win over the caller's, as in
 * OpenCode: a UI passes the agent it is on, and a command that names one means it. A sub-agent
 * with a model of its own always runs on it (see runTask).
 */
export function createCommandRunner<Result>(deps: CommandRunnerDeps<Result>): CommandRunner<Result> {
  const commands = parseInput("commands", Commands, deps.commands)

  async function command(raw: CommandInput): Promise<Result> {
    const input = parseInput("command input", CommandInput, raw)
    const definition = Object.hasOwn(commands, input.command) ? commands[input.command] : undefined
    if (definition === undefined) throw UnknownCommandError.of(input.command, Object.keys(commands))
    const text = expand(definition.template, input.arguments ?? "")
    const callerAgent = input.agent ?? deps.defaultAgent()
    const agent = definition.agent ?? callerAgent
    // Checked here so that a command naming a missing agent stores no message.
    const agentInfo = Object.hasOwn(deps.agents, agent) ? deps.agents[agent] : undefined
    if (agentInfo === undefined) throw UnknownAgentError.of(agent, Object.keys(deps.agents))
    // OpenCode's order: the command's model, its agent's, the caller's (then the prompt's own rule).
    const model = definition.model ?? agentInfo.model ?? input.model
    const base = { sessionID: input.sessionID, ...(input.messageID ? { messageID: input.messageID } : {}) }

    if (!isSubtask(definition, agentInfo)) {
      const part: PromptPart = { type: "text", text }
      return deps.prompt({ ...base, agent, ...(model ? { model } : {}), parts: [part] })
    }
    const part: PromptPart = {
      type: "subtask",
      prompt: text,
      description: definition.description ?? input.command,
      agent,
      // The step handing the task over runs on it; the sub-agent on its own model, else on this.
      ...(model ? { model } : {}),
    }
    return deps.prompt({
      ...base,
      agent: callerAgent,
      ...(input.model ? { model: input.model } : {}),
      parts: [part],
    })
  }

  return { command }
}

/** OpenCode's rule: `subtask` decides when set; unset, a sub-agent's command is a subtask. */
function isSubtask(definition: Info, agent: AgentInfo): boolean {
  return definition.subtask ?? agent.mode === "subagent"
}
