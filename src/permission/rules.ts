import { homedir } from "node:os"
import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { Action, type Rule, type Ruleset } from "./schema.js"
import { match } from "./wildcard.js"

/**
 * The rule that decides `permission` for `pattern`: the last matching rule across the
 * rulesets taken in order, so later rulesets (and later rules) override earlier ones.
 * No match means ask.
 */
export function evaluate(permission: string, pattern: string, ...rulesets: Ruleset[]): Rule {
  for (let set = rulesets.length - 1; set >= 0; set--) {
    const rules = rulesets[set]!
    for (let index = rules.length - 1; index >= 0; index--) {
      const rule = rules[index]!
      if (match(permission, rule.permission) && match(pattern, rule.pattern)) return rule
    }
  }
  return { permission, pattern: "*", action: "ask" }
}

/** The rulesets as one, in order: a later ruleset's rules win over an earlier one's. */
export function merge(...rulesets: Ruleset[]): Ruleset {
  return rulesets.flat()
}

/**
 * Permission rules as configuration: a permission to an action, or to patterns and their actions,
 * as in OpenCode (`{ edit: "ask", bash: { "git *": "allow" } }`). `fromConfig` turns it into a
 * `Ruleset`.
 */
export const Config = z.record(z.string(), z.union([Action, z.record(z.string(), Action)]))
export type Config = z.infer<typeof Config>

/**
 * Rules from the config shape `{ bash: "allow", edit: { "*": "deny", "src/*": "allow" } }`,
 * in key order. Patterns starting with `~`, `~/` or `$HOME` are expanded to the home directory.
 */
export function fromConfig(config: Config, options: { home?: string } = {}): Ruleset {
  const home = options.home ?? homedir()
  const rules: Ruleset = []
  for (const [permission, value] of Object.entries(parseInput("permission config", Config, config))) {
    if (typeof value === "string") {
      rules.push({ permission, pattern: "*", action: value })
      continue
    }
    for (const [pattern, action] of Object.entries(value))
      rules.push({ permission, pattern: expandHome(pattern, home), action })
  }
  return rules
}

function expandHome(pattern: string, home: string): string {
  if (pattern === "~" || pattern === "$HOME") return home
  if (pattern.startsWith("~/")) return home + pattern.slice(1)
  if (pattern.startsWith("$HOME/")) return home + pattern.slice(5)
  return pattern
}

/** Tools that change files all answer to the `edit` permission. */
const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])

/** The permission a tool's calls ask: `edit` for the tools that change files, else the tool's ID. */
export function permissionOfTool(toolID: string): string {
  return EDIT_TOOLS.has(toolID) ? "edit" : toolID
}

/** Tools the ruleset turns off entirely: the last rule for their permission denies everything. */
export function disabled(toolIDs: Iterable<string>, ruleset: Ruleset): Set<string> {
  const off = new Set<string>()
  for (const toolID of toolIDs) {
    const permission = permissionOfTool(toolID)
    const rule = ruleset.findLast((candidate) => match(permission, candidate.permission))
    if (rule?.pattern === "*" && rule.action === "deny") off.add(toolID)
  }
  return off
}
