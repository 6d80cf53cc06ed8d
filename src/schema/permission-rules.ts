import { homedir } from "node:os"
import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { Action, type Rule, type Ruleset } from "./permission.js"

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

const REGEX_SPECIALS = /[.+^${}()|[\]\\]/g

/**
 * Whether `value` matches a wildcard `pattern`: `*` is any run of characters, `?` one
 * character, everything else literal; the whole value must match. Backslashes count as `/`
 * on both sides, so Windows paths match POSIX-style patterns. A pattern ending in " *" also
 * matches the bare command: "ls *" matches "ls" and "ls -la" but not "lstmeval".
 */
export function match(value: string, pattern: string): boolean {
  let source = toSlashes(pattern).replace(REGEX_SPECIALS, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
  return new RegExp(`^${source}$`, "s").test(toSlashes(value))
}

function toSlashes(text: string): string {
  return text.replaceAll("\\", "/")
}

type Kept = { permission: unknown; pattern: unknown; action: unknown }

/**
 * `compute` over a ruleset, kept while the rules stay the same: every step of a run asks with
 * rules equal to the last step's, as a new array (each step reads the session anew). The rules
 * are compared field by field with a copy taken when the value was computed, so rules changed
 * in place count as changed too. One value is kept: the rules of most steps are the same.
 */
export function memoByRuleset<T>(compute: (ruleset: Ruleset) => T): (ruleset: Ruleset) => T {
  let last: { rules: Kept[]; value: T } | undefined
  return (ruleset) => {
    if (last && Array.isArray(ruleset) && same(ruleset, last.rules)) return last.value
    const value = compute(ruleset)
    last = { rules: Array.from(ruleset, copy), value }
    return value
  }
}

function same(ruleset: Ruleset, kept: readonly Kept[]): boolean {
  if (ruleset.length !== kept.length) return false
  for (let index = 0; index < kept.length; index++) {
    const rule = ruleset[index] as Kept | undefined
    const was = kept[index]!
    if (rule?.permission !== was.permission || rule?.pattern !== was.pattern || rule?.action !== was.action)
      return false
  }
  return true
}

function copy(rule: Kept | undefined): Kept {
  return { permission: rule?.permission, pattern: rule?.pattern, action: rule?.action }
}
