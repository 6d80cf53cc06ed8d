import type { CommandInfo } from "../../command/info.js"
import type { AgentOptions } from "../../runtime/options.js"
import type { Operations } from "../operations.js"

/** How `loadProjectConfig` looks for a project's markdown agents and commands. */
export type ProjectConfigOptions = {
  /** Where the files are read. Default: `localOperations` (this machine's files). */
  operations?: Operations
  /**
   * The highest folder searched. Default: the nearest folder from the directory up holding
   * `.git` (the work tree's root); without one, only the directory itself is searched.
   */
  root?: string
  /** Whether Claude Code's `.claude/agents` and `.claude/commands` are read too. Default true. */
  claude?: boolean
  /**
   * Told what is ignored on purpose, with the file: a Claude Code model alias (`sonnet`), two
   * files of one folder defining one name, `disable` on a built-in agent. Default: console.warn.
   */
  onWarning?: (message: string) => void
  /** Stops the reads. */
  signal?: AbortSignal
}

/**
 * What `loadProjectConfig` found: agents and commands by name, ready for `createRuntime`'s
 * `agents` and `commands` (spread the host's own after them, so the host's win), and every file
 * it read.
 */
export type ProjectConfig = {
  agents: Record<string, AgentOptions>
  commands: Record<string, CommandInfo>
  /** The markdown files read, absolute, farthest folder first. */
  files: string[]
}
