import { type Config, fromConfig, merge } from "../permission/rules.js"
import type { Ruleset } from "../permission/schema.js"
import type { Info } from "./info.js"
import { BUILD } from "./prompts/build.js"
import { COMPACTION } from "./prompts/compaction.js"
import { EXPLORE } from "./prompts/explore.js"
import { GENERAL } from "./prompts/general.js"
import { PLAN } from "./prompts/plan.js"
import { SUMMARY } from "./prompts/summary.js"
import { TITLE } from "./prompts/title.js"

// Secrets usually live in .env files; the example file is meant to be read.
const READ: Config[string] = { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" }

/**
 * The rules every visible built-in starts from. Agents add their own after these, and since the
 * last matching rule wins, an agent that opens with `"*": "deny"` must restate the asks below.
 */
const BASE: Config = {
  "*": "allow",
  doom_loop: "ask",
  external_directory: "ask",
  // Only primary agents talk to the user; each one allows this again.
  question: "deny",
  read: READ,
}

// Read-only agents keep the shell behind a prompt: a command can change files as surely as
// the edit tool, and an allow-list of "safe" commands is defeated by a single redirection.
const READ_ONLY_SHELL: Config = { bash: "ask" }

/**
 * The built-in agents, freshly built on each call so a caller can change them freely.
 * Hosts override or extend them through `resolveAgents`.
 */
export function builtins(): Record<string, Info> {
  const base = fromConfig(BASE)
  return {
    build: {
      name: "build",
      description: "The default agent: works on the project with every tool the rules allow.",
      mode: "primary",
      prompt: BUILD,
      permission: merge(base, fromConfig({ question: "allow" })),
    },
    plan: {
      name: "plan",
      description: "Researches and writes a plan without changing files; edits are denied.",
      mode: "primary",
      prompt: PLAN,
      permission: merge(base, fromConfig({ question: "allow", edit: { "*": "deny" }, ...READ_ONLY_SHELL })),
    },
    general: {
      name: "general",
      description:
        "General-purpose sub-agent for researching complex questions and carrying out multi-step tasks on its own.",
      mode: "subagent",
      prompt: GENERAL,
      permission: merge(base, subagentRules({})),
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
          read: READ,
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
    compaction: hidden("compaction", COMPACTION),
    title: { ...hidden("title", TITLE), temperature: 0.5 },
    summary: hidden("summary", SUMMARY),
  }
}

/**
 * A sub-agent cannot reach the user, keeps no to-do list of its own (that is the parent's), and
 * starts no sub-agents of its own, so delegation cannot recurse without the host opting in.
 */
function subagentRules(own: Config): Ruleset {
  return fromConfig({ ...own, question: "deny", todowrite: "deny", todoread: "deny", task: "deny" })
}

// Hidden agents only produce text for agentloop itself; no tool may run under them.
function hidden(name: string, prompt: string): Info {
  return { name, mode: "primary", hidden: true, prompt, permission: fromConfig({ "*": "deny" }) }
}
