import { codingAgents } from "../agent/coding.js"
import type { AgentInfo } from "../agent/info.js"
import type { ToolInfo } from "../tool/tool.js"
import { type CodingToolsOptions, codingTools } from "./coding-tools.js"

/** Runtime options that make a coding agent; spread them into `createRuntime`. */
export type CodingPreset = {
  /** The directory the tools work in, recorded on new sessions. */
  directory: string
  /** The coding tools (`codingTools`) bound to that directory. */
  tools: ToolInfo[]
  /** OpenCode's agents: `build` with the coding prompt, `plan`, and the `explore` sub-agent. */
  agents: Record<string, AgentInfo>
  /** The system prompt names the directory, whether it is a git repository, and the platform. */
  environment: "workspace"
  /** OpenCode's agents always have the `task` tool, to start `explore` or `general`. */
  task: true
  /** And the to-do list tools, `todowrite` and `todoread`. */
  todos: true
}

/**
 * Everything that makes the runtime a coding agent working in `directory`, in one place: the
 * coding tools, the coding agents and prompts, and an environment block naming the directory.
 * `createRuntime({ provider, ...codingPreset({ directory }) })`; to add tools of your own,
 * spread `preset.tools` into your `tools`.
 */
export function codingPreset(options: CodingToolsOptions = {}): CodingPreset {
  const directory = options.directory ?? process.cwd()
  return {
    directory,
    tools: codingTools({ ...options, directory }),
    agents: codingAgents(),
    environment: "workspace",
    task: true,
    todos: true,
  }
}
