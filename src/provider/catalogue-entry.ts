import type { ModelInfo } from "./model-info.js"

/**
 * Which model IDs name a catalogue model, in the catalogue's own terms: a model is usually called
 * by its alias and by dated snapshots ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929").
 */
export type MatchRule =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { or: readonly MatchRule[] }
  | { and: readonly MatchRule[] }

/** One model of the generated catalogue (src/provider/catalogue-data.ts, as JSON text). */
export type CatalogueEntry = {
  id: string
  name: string
  match: MatchRule
  /** The context window in tokens, when the catalogue knows it. */
  context?: number
  cost: NonNullable<ModelInfo["cost"]>
}

/** Whether `modelID` (lower-cased, as the catalogue's rules are) names the model of `rule`. */
export function matches(rule: MatchRule, modelID: string): boolean {
  if ("equals" in rule) return modelID === rule.equals
  if ("starts_with" in rule) return modelID.startsWith(rule.starts_with)
  if ("ends_with" in rule) return modelID.endsWith(rule.ends_with)
  if ("contains" in rule) return modelID.includes(rule.contains)
  if ("regex" in rule) return new RegExp(rule.regex).test(modelID)
  if ("or" in rule) return rule.or.some((inner) => matches(inner, modelID))
  return rule.and.every((inner) => matches(inner, modelID))
}
