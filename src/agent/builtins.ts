import type { Ruleset } from "../schema/permission.js"
import { type Config, fromConfig, merge } from "../schema/permission-rules.js"
import type { Info } from "./info.js"
import { COMPACTION } from "./prompts/compaction.js"
import { DEFAULT } from "./prompts/default.js"
import { GENERAL } from "./prompts/general.js"
import { SUMMARY } from "./prompts/summary.js"
import { TITLE } from "./prompts/title.js"

// Secrets usually live in .env files; the example file is meant to be read.
export const READ_RULES: Config[string] = {
  "*": "allow",
  "*.env": "ask",
  "*.env.*": "ask",
  "*.env.example": "allow",
}

/**
 * The rules every visible built-in starts from. Agents add their own after these, and since the
 * last matching rule wins, an agent that opens with `"*": "deny"` must restate the asks below.
 * `read` and `external_directory` only matter once file tools are registered (the coding
 * tools), and then they must already hold.
 */
const BASE: Config = {
  "*": "allow",
  doom_loop: "ask",
  external_directory: "ask",
  // Only primary agents talk to the user; each one allows this again.
  question: "deny",
  read: READ_RULES,
}

/** The rules visible built-ins start from, as a ruleset. */
export function baseRules(): Ruleset {
  return fromConfig(BASE)
}

/**
 * The built-in agents, freshly built on each call so a caller can change them freely: `build`
 * (the default, a general assistant), the `general` sub-agent and the hidden agents agentloop
 * runs itself. Nothing here assumes a codebase; the coding agents (`codingAgents`) come with
 * the coding preset. Hosts override or extend them through `resolveAgents`.
 */
export function builtins(): Record<string, Info> {
  const base = baseRules()
  return {
    build: {
      name: "build",
      description: "The default agent: works on the request with every tool the rules allow.",
      mode: "primary",
      prompt: DEFAULT,
      permission: merge(base, fromConfig({ question: "allow" })),
    },
    general: {
      name: "general",
      description:
        "General-purpose sub-agent for researching complex questions and carrying out multi-step tasks on its own.",
      mode: "subagent",
      prompt: GENERAL,
      permission: merge(base, subagentRules({})),
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
export function subagentRules(own: Config): Ruleset {
  return fromConfig({ ...own, question: "deny", todowrite: "deny", todoread: "deny", task: "deny" })
}

// Hidden agents only produce text for agentloop itself; no tool may run under them.
function hidden(name: string, prompt: string): Info {
  return { name, mode: "primary", hidden: true, prompt, permission: fromConfig({ "*": "deny" }) }
}
