export {
  CompactionConfig as Config,
  type CompactionConfigInput as ConfigInput,
  OUTPUT_TOKEN_MAX,
  PRUNE_MINIMUM,
  PRUNE_PROTECT,
  PRUNE_PROTECTED_TOOLS,
  RESERVED_MAX,
  SUMMARY_TOOL_OUTPUT_CHARS,
  TAIL_MAX_TOKENS,
  TAIL_MIN_TOKENS,
} from "./config.js"
export { estimateMessage, estimateTokens } from "./estimate.js"
export { isOverflow, tailBudget, usable } from "./overflow.js"
export { type CompletedToolPart, type PruneSelection, selectPrune } from "./prune.js"
export { selectTail } from "./tail.js"
