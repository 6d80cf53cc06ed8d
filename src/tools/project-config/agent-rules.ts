import { baseRules } from "../../agent/builtins.js"
import type { Action, Rule, Ruleset } from "../../schema/permission.js"
import { type Config, fromConfig, permissionOfTool } from "../../schema/permission-rules.js"

/** Claude Code's tool names, as the permissions their counterparts here ask. */
const CLAUDE_TOOLS: Record<string, readonly string[]> = {
  Read: ["read"],
  Write: ["edit"],
  Edit: ["edit"],
  MultiEdit: ["edit"],
  NotebookEdit: ["edit"],
  Bash: ["bash"],
  Grep: ["grep"],
  Glob: ["glob"],
  LS: ["list"],
  WebFetch: ["webfetch"],
  WebSearch: ["websearch"],
  TodoWrite: ["todowrite", "todoread"],
  Task: ["task"],
  Skill: ["skill"],
}

/** The permissions a list of tool names asks, Claude Code's names (`Read, Grep`) or ours (`read`). */
export function permissionsOf(tools: readonly string[]): string[] {
  const names = tools.flatMap((tool) => tool.split(",")).map((tool) => tool.trim().replace(/\(.*$/, ""))
  return [...new Set(names.filter(Boolean).flatMap((name) => CLAUDE_TOOLS[name] ?? [permissionOfTool(name)]))]
}

/** OpenCode's deprecated `tools` map: `false` denies the tool, `true` allows it; write, edit and patch are `edit`. */
export function toolMapRules(tools: Record<string, boolean>): Ruleset {
  return Object.entries(tools).map(([tool, on]) => ({
    permission: permissionOfTool(tool),
    pattern: "*",
    action: on ? "allow" : "deny",
  }))
}

/**
 * Claude Code's `tools` list: only these tools, each under the rules a new agent starts from
 * (so reading a `.env` file still asks), and the asks every agent keeps.
 */
export function onlyTools(permissions: readonly string[]): Ruleset {
  const base = baseRules()
  const kept = [...new Set([...permissions, "doom_loop", "external_directory"])]
  const restated = kept.flatMap((permission) =>
    base
      .filter((rule) => rule.permission === "*" || rule.permission === permission)
      .map((rule): Rule => ({ ...rule, permission })),
  )
  return [{ permission: "*", pattern: "*", action: "deny" }, ...restated]
}

/** OpenCode's `permission`: one action for everything, or its usual config shape. */
export function permissionRules(permission: Action | Config): Ruleset {
  return fromConfig(typeof permission === "string" ? { "*": permission } : permission)
}
