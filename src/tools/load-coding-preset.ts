import type { CommandInfo } from "../command/info.js"
import type { AgentOptions } from "../runtime/options.js"
import { type CodingPreset, type CodingPresetOptions, presetWithSkills } from "./coding-preset.js"
import { loadProjectConfig, overlayAgents, type ProjectConfigOptions } from "./project-config/index.js"
import { skillCommands } from "./skills/index.js"

/** What `loadCodingPreset` takes: the preset's options, and how the project's markdown agents and commands are read. */
export type LoadCodingPresetOptions = CodingPresetOptions & {
  /** How `.opencode/` and `.claude/` agents and commands are read (`loadProjectConfig`); false: not at all. */
  project?: false | Omit<ProjectConfigOptions, "operations">
}

/**
 * The coding preset with what the project defines: its markdown agents laid over the coding
 * agents, its markdown commands, and its skills as slash commands (a command of the same name
 * wins). Every key is a runtime option: spread it into `createRuntime`.
 */
export type LoadedCodingPreset = Omit<CodingPreset, "agents"> & {
  /** The coding agents, each with the project's file of the same name laid over it, and the project's own agents. */
  agents: Record<string, AgentOptions>
  /** The project's commands, and a command per skill (`/<skill name>`), as OpenCode offers them. */
  commands: Record<string, CommandInfo>
}

/**
 * `codingPreset`, plus the project's markdown agents and commands (`loadProjectConfig`) and its
 * skills as slash commands, read once now: `createRuntime({ provider, ...(await
 * loadCodingPreset({ directory })) })`. Spread your own `agents` and `commands` after it, merged
 * with the preset's, so that yours win. Rejects with ProjectConfigError naming the file and field
 * of a bad agent or command file, and with InvalidSkillsError under `skills: { invalid: "throw" }`.
 */
export async function loadCodingPreset(options: LoadCodingPresetOptions = {}): Promise<LoadedCodingPreset> {
  const { project: projectOptions, ...presetOptions } = options
  const { preset, operations, skills } = presetWithSkills(presetOptions)
  const project =
    projectOptions === false
      ? { agents: {}, commands: {} }
      : await loadProjectConfig(preset.directory, { ...projectOptions, operations })
  if (skills) await skills.catalog.load()
  return {
    ...preset,
    agents: overlayAgents(preset.agents, project.agents),
    commands: { ...(skills ? skillCommands(skills.catalog) : {}), ...project.commands },
  }
}
