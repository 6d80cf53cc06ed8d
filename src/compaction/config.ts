import { z } from "zod"

/** The largest output a model is assumed to need on one call, and the reserve when its limit is unknown. */
export const OUTPUT_TOKEN_MAX = 32_000
/** The most input-limited models keep free for the next answer, unless `reserved` says otherwise. */
export const RESERVED_MAX = 20_000
/** Retained-tail budget bounds: a quarter of the usable window, clamped to these. */
export const TAIL_MIN_TOKENS = 2_000
/** The upper bound of the retained-tail budget (see `TAIL_MIN_TOKENS`). */
export const TAIL_MAX_TOKENS = 8_000
/** Prune keeps this many estimated tokens of the newest tool output untouched... */
export const PRUNE_PROTECT = 40_000
/** ...and only rewrites history when that frees more than this. */
export const PRUNE_MINIMUM = 20_000
/** Tool outputs prune never clears: they hold what the user said or loaded on purpose. */
export const PRUNE_PROTECTED_TOOLS: readonly string[] = ["question", "skill"]
/** Tool outputs in a summary request are cut to this many characters. */
export const SUMMARY_TOOL_OUTPUT_CHARS = 2_000

/**
 * The compaction settings, RuntimeOptions' `compaction`: when to compact, whether to prune,
 * how much room to keep and how much recent history a summary keeps verbatim. Parsed with its
 * defaults filled in; unknown keys are refused, so a misspelt setting fails with
 * InvalidInputError when the runtime is created. See docs/compaction.md.
 */
export const CompactionConfig = z.strictObject({
  /** Compact automatically when a step's usage reaches the usable window or the provider reports an overflow. */
  auto: z.boolean().default(true),
  /** Clear old tool outputs after each loop. Off by default: rewriting history defeats prompt caching. */
  prune: z.boolean().default(false),
  /** Tokens kept free for the next answer. Default: min(20,000, the model's output reserve). */
  reserved: z.number().int().nonnegative().optional(),
  /** How many of the latest turns a summary keeps verbatim, within the tail budget. */
  tailTurns: z.number().int().nonnegative().default(2),
  /** Token budget of the retained tail. Default: 25% of the usable window, clamped to 2,000–8,000. */
  preserveRecentTokens: z.number().int().nonnegative().optional(),
  /** Tools whose outputs prune leaves alone. */
  protectedTools: z.array(z.string()).default([...PRUNE_PROTECTED_TOOLS]),
})
export type CompactionConfig = z.infer<typeof CompactionConfig>
/** The compaction settings as a caller writes them: every field optional, defaults not yet applied. */
export type CompactionConfigInput = z.input<typeof CompactionConfig>
