import { type Config, fromConfig, merge } from "../schema/permission-rules.js"
import { baseRules, READ_RULES, subagentRules } from "./builtins.js"
import type { Info } from "./info.js"
import { BUILD } from "./prompts/build.js"
import { EXPLORE } from "./prompts/explore.js"
import { PLAN } from "./prompts/plan.js"

// Read-only agents keep the shell behind a prompt: a command can change files as surely as
// the edit tool, and an allow-list of "safe" commands is defeated by a single redirection.
const READ_ONLY_SHELL: Config = { bash: "ask" }

/**
 * The agents of a coding assistant, OpenCode's: `build` with the coding prompt, `plan` (edits
 * denied, the shell behind a prompt) and the read-only `explore` sub-agent. Given as overrides
 * (`createRuntime({ agents: Agent.codingAgents() })`, or through `codingPreset` from
 * agentloop-sdk/tools); each carries its whole ruleset, built-in rules first.
 */
export function codingAgents(): Record<string, Info> {
  const base = baseRules()
  return {
    build: {
      name: "build",
      description: "The default agent: works on the project with every tool the rules allow.",
      mode: "primary",
      prompt: BUILD,
      permission: [],
    },
    plan: {
      name: "plan",
      description: "Researches and writes a plan without changing files; edits are denied.",
      mode: "primary",
      prompt: PLAN,
      permission: merge(base, fromConfig({ question: "allow", edit: { "*": "deny" }, ...READ_ONLY_SHELL })),
    },
    explore: {
      name: "explore",
      description:
        "Fast read-only sub-agent for finding files, searching code and answering questions about a codebase. Say how thorough it should be.",
      mode: "subagent",
      prompt: EXPLORE,
      permission: merge(
        base,
        subagentRules({
          "*": "deny",
          read: READ_RULES,
          glob: "allow",
          grep: "allow",
          list: "allow",
          webfetch: "allow",
          websearch: "allow",
          ...READ_ONLY_SHELL,
          doom_loop: "ask",
          external_directory: "ask",
        }),
      ),
    },
  }
}
