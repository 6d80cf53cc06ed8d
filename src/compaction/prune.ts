import type { WithParts } from "../message/info.js"
import type { ToolPart, ToolStateCompleted } from "../message/part.js"
import { PRUNE_MINIMUM, PRUNE_PROTECT, PRUNE_PROTECTED_TOOLS } from "./config.js"
import { estimateTokens } from "./estimate.js"

/** A tool part whose call completed, with its output. */
export type CompletedToolPart = ToolPart & { state: ToolStateCompleted }

/**
 * What `selectPrune` chose: the tool outputs to clear and the tokens that frees;
 * `{ parts: [], tokens: 0 }` when clearing would free too little to be worth rewriting history.
 */
export type PruneSelection = {
  /** Completed tool parts whose output should be cleared, newest first. */
  parts: CompletedToolPart[]
  /** The estimated tokens clearing them frees. */
  tokens: number
}

/**
 * Which tool outputs to clear: completed outputs older than the last two turns and beyond the
 * newest `protect` estimated tokens of tool output, when clearing them frees more than `minimum`.
 * Walks back from the newest message and stops at a summary or at an output already cleared, so
 * repeated runs only look at what is new.
 */
export function selectPrune(
  messages: readonly WithParts[],
  options: { protect?: number; minimum?: number; protectedTools?: readonly string[] } = {},
): PruneSelection {
  const protect = options.protect ?? PRUNE_PROTECT
  const minimum = options.minimum ?? PRUNE_MINIMUM
  const protectedTools = new Set(options.protectedTools ?? PRUNE_PROTECTED_TOOLS)
  const parts: CompletedToolPart[] = []
  let total = 0
  let tokens = 0
  let turns = 0
  walk: for (let index = messages.length - 1; index >= 0; index--) {
    const { info, parts: messageParts } = messages[index]!
    if (info.role === "user") turns++
    if (turns < 2) continue
    if (info.role === "assistant" && info.summary) break
    for (let partIndex = messageParts.length - 1; partIndex >= 0; partIndex--) {
      const part = messageParts[partIndex]!
      if (part.type !== "tool" || part.state.status !== "completed" || protectedTools.has(part.tool)) continue
      if (part.state.time.compacted) break walk
      const estimate = estimateTokens(part.state.output)
      total += estimate
      if (total > protect) {
        tokens += estimate
        parts.push(part as CompletedToolPart)
      }
    }
  }
  return tokens > minimum ? { parts, tokens } : { parts: [], tokens: 0 }
}
