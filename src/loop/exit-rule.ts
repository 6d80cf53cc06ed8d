import { ContextOverflowError } from "../message/errors.js"
import { latestSummaryID } from "../message/filter-compacted.js"
import type { Assistant, WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"

/**
 * The exit rule: the latest assistant message answers the latest user message, and finished
 * for another reason than tool calls with no tool left unfinished, or failed, or holds the
 * structured answer the user message asked for.
 */
export function isFinal(last: WithParts, user: WithParts): boolean {
  const info = last.info as Assistant
  if (info.id < user.info.id) return false
  if (info.error || info.structured !== undefined) return true
  const unfinished = last.parts.some(
    (part) => part.type === "tool" && (part.state.status === "pending" || part.state.status === "running"),
  )
  return info.finish !== undefined && info.finish !== "tool-calls" && info.finish !== "unknown" && !unfinished
}

/**
 * The latest tool parts of the assistant messages answering the latest user message, oldest
 * first: at most `limit`, read from the end, so a long turn costs no more per step than a short
 * one. The doom-loop guard looks at the last few.
 */
export function turnToolParts(history: readonly WithParts[], userID: string, limit: number): ToolPart[] {
  const found: ToolPart[] = []
  for (let index = history.length - 1; index >= 0 && found.length < limit; index--) {
    const { info, parts } = history[index]!
    if (info.id <= userID) break
    if (info.role !== "assistant") continue
    for (let at = parts.length - 1; at >= 0 && found.length < limit; at--) {
      const part = parts[at]!
      if (part.type === "tool") found.push(part)
    }
  }
  return found.reverse()
}

/** The newest answer that finished without error since the latest compaction, if any. */
export function finishedSinceCompaction(visible: readonly WithParts[]): Assistant | undefined {
  const summaryID = latestSummaryID(visible)
  for (let index = visible.length - 1; index >= 0; index--) {
    const info = visible[index]!.info
    if (summaryID !== undefined && info.id <= summaryID) return undefined
    if (info.role === "assistant" && !info.summary && info.finish !== undefined && !info.error) return info
  }
  return undefined
}

export function overflowError(afterCompaction: boolean): NonNullable<Assistant["error"]> {
  return new ContextOverflowError({
    message: afterCompaction
      ? "The conversation does not fit the model's context window even after compaction."
      : "The conversation no longer fits the model's context window, and automatic compaction is off.",
  }).toObject()
}
