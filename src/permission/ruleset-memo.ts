import type { Ruleset } from "./schema.js"

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
