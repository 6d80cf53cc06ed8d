import { homedir } from "node:os"
import { codingAgents } from "../agent/coding.js"
import type { AgentInfo } from "../agent/info.js"
import type { InstructionSource } from "../agent/instructions.js"
import type { ToolInfo } from "../tool/tool.js"
import { sandboxOf } from "./bash/in-sandbox.js"
import { type CodingToolsOptions, codingOperations, codingTools } from "./coding-tools.js"
import {
  defaultGlobalInstructions,
  type InstructionFilesOptions,
  instructionFiles,
} from "./instructions/index.js"
import type { Operations } from "./operations.js"
import { type AgentSkills, agentSkills, type SkillOptions } from "./skills/index.js"

/** What `codingPreset` takes: the coding tools' options, and the project context it reads. */
export type CodingPresetOptions = CodingToolsOptions & {
  /**
   * The project's instruction files (`AGENTS.md`, `CLAUDE.md` up to the work tree's root, the
   * user's global file, `extra` files) in the system prompt, read again each turn; false: none.
   * The global file defaults to OpenCode's and Claude Code's places in the home directory, and to
   * none in a sandbox. See docs/tools.md.
   */
  instructions?: false | Omit<InstructionFilesOptions, "operations" | "directory">
  /** Agent Skills from the project's skill folders and the host's (docs/skills.md); false: none. */
  skills?: false | Omit<SkillOptions, "operations" | "directory">
}

/** Runtime options that make a coding agent; spread them into `createRuntime`. */
export type CodingPreset = {
  /** The directory the tools work in, recorded on new sessions. */
  directory: string
  /** The coding tools (`codingTools`) bound to that directory, and `skill` when skills are on. */
  tools: ToolInfo[]
  /** OpenCode's agents: `build` with the coding prompt, `plan`, and the `explore` sub-agent. */
  agents: Record<string, AgentInfo>
  /**
   * The instruction files' and the skills' sources, read once per turn. To add text of your own,
   * keep them: `instructions: [...preset.instructions, "Use pnpm."]`.
   */
  instructions: InstructionSource[]
  /** The system prompt names the directory, whether it is a git repository, and the platform. */
  environment: "workspace"
  /** OpenCode's agents always have the `task` tool, to start `explore` or `general`. */
  task: true
  /** And the to-do list tools, `todowrite` and `todoread`. */
  todos: true
}

/**
 * Everything that makes the runtime a coding agent working in `directory`, in one place: the
 * coding tools, the coding agents and prompts, an environment block naming the directory, the
 * project's instruction files and its Agent Skills. `createRuntime({ provider,
 * ...codingPreset({ directory }) })`; to add tools of your own, spread `preset.tools` into your
 * `tools`. `loadCodingPreset` adds the project's markdown agents and commands.
 */
export function codingPreset(options: CodingPresetOptions = {}): CodingPreset {
  return presetWithSkills(options).preset
}

/**
 * The preset, with what `loadCodingPreset` reads the project through and its skills, which it
 * offers as commands too.
 */
export function presetWithSkills(options: CodingPresetOptions): {
  preset: CodingPreset
  operations: Operations
  skills?: AgentSkills
} {
  const { instructions: instructionOptions, skills: skillOptions, sandbox: _madeBelow, ...tools } = options
  const directory = options.directory ?? process.cwd()
  const operations = codingOperations(options, directory)
  const files = instructionOptions === false ? undefined : filesOf(operations, directory, instructionOptions)
  const skills = skillOptions === false ? undefined : agentSkills({ ...skillOptions, operations, directory })
  const preset: CodingPreset = {
    directory,
    tools: [
      ...codingTools({
        ...tools,
        directory,
        operations,
        ...(files ? { nestedInstructions: files.nested } : {}),
      }),
      ...(skills ? [skills.tool] : []),
    ],
    agents: codingAgents(),
    instructions: [...(files ? [files.source] : []), ...(skills ? [skills.instructions] : [])],
    environment: "workspace",
    task: true,
    todos: true,
  }
  return skills ? { preset, operations, skills } : { preset, operations }
}

function filesOf(
  operations: Operations,
  directory: string,
  options: Omit<InstructionFilesOptions, "operations" | "directory"> = {},
) {
  // A sandboxed agent reads nothing of the user's home, their private notes included.
  const global = sandboxOf(operations) ? false : defaultGlobalInstructions(homedir())
  return instructionFiles({ global, ...options, operations, directory })
}
