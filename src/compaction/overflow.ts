import type { Tokens } from "../message/part.js"
import type { ModelInfo } from "../provider/model-info.js"
import {
  type CompactionConfigInput,
  OUTPUT_TOKEN_MAX,
  RESERVED_MAX,
  TAIL_MAX_TOKENS,
  TAIL_MIN_TOKENS,
} from "./config.js"

type Limits = Pick<ModelInfo, "limit">
type Config = Pick<CompactionConfigInput, "auto" | "reserved" | "preserveRecentTokens">

/**
 * The prompt tokens a model can take while leaving room for its answer: the input limit minus
 * the reserve when the model has one, else the context minus the output reserve. Infinity when
 * the window is unknown (no limit, or a context of 0): only the provider can say it is full.
 */
export function usable(model: Limits, config: Config = {}): number {
  const limit = windowOf(model)
  if (!limit) return Number.POSITIVE_INFINITY
  const output = Math.min(limit.output, OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX
  if (limit.input === undefined) return Math.max(0, limit.context - output)
  const reserved = config.reserved ?? Math.min(RESERVED_MAX, output)
  return Math.max(0, limit.input - reserved)
}

/**
 * Whether a step's usage leaves too little room for the next call. Never true when the model's
 * window is unknown or automatic compaction is off.
 */
export function isOverflow(input: {
  tokens: Pick<Tokens, "input" | "output" | "cache">
  model: Limits
  config?: Config
}): boolean {
  const { tokens, model, config = {} } = input
  if (config.auto === false || !windowOf(model)) return false
  const used = tokens.input + tokens.output + tokens.cache.read + tokens.cache.write
  return used >= usable(model, config)
}

function windowOf(model: Limits): ModelInfo["limit"] {
  return model.limit && model.limit.context > 0 ? model.limit : undefined
}

/** The token budget of the turns a summary keeps verbatim. */
export function tailBudget(model: Limits, config: Config = {}): number {
  if (config.preserveRecentTokens !== undefined) return config.preserveRecentTokens
  const quarter = Math.floor(usable(model, config) / 4)
  return Math.min(TAIL_MAX_TOKENS, Math.max(TAIL_MIN_TOKENS, quarter))
}
