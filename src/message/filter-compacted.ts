import type { Assistant, WithParts } from "./info.js"
import type { CompactionPart } from "./part.js"

/**
 * The part of a history the model still sees, oldest first. Everything before the latest
 * completed compaction is hidden except the tail that compaction kept, and the order is the one
 * the model must read: the compaction request, its summary, the retained tail, then what came
 * after. A summary that is unfinished or failed does not count, so its compaction hides nothing;
 * a failed one is left out with its request, which would otherwise be a question no one answered.
 * Scans from the newest message back, so the cost follows what is kept, not the session's length.
 */
export function filterCompacted(messages: readonly WithParts[]): WithParts[] {
  const summaries = new Map<string, WithParts>()
  let index = messages.length - 1
  for (; index >= 0; index--) {
    const message = messages[index]!
    const info = message.info
    if (info.role === "assistant" && isCompletedSummary(info)) {
      if (!summaries.has(info.parentID)) summaries.set(info.parentID, message)
    } else if (info.role === "user" && summaries.has(info.id) && compactionPart(message)) break
  }
  if (index < 0) return withoutFailedCompactions(messages)

  const request = messages[index]!
  const summary = summaries.get(request.info.id)!
  const tailStartID = compactionPart(request)?.tailStartID
  let tailStart = index
  if (tailStartID !== undefined)
    while (tailStart > 0 && messages[tailStart - 1]!.info.id >= tailStartID) tailStart--
  const later = messages.slice(index + 1).filter((message) => message !== summary)
  return withoutFailedCompactions([request, summary, ...messages.slice(tailStart, index), ...later])
}

function withoutFailedCompactions(messages: readonly WithParts[]): WithParts[] {
  const failed = new Set<string>()
  for (const { info } of messages)
    if (info.role === "assistant" && info.summary === true && info.error !== undefined)
      failed.add(info.parentID)
  if (failed.size === 0) return [...messages]
  return messages.filter(
    (message) =>
      !(
        message.info.role === "assistant" &&
        message.info.summary === true &&
        message.info.error !== undefined
      ) && !(failed.has(message.info.id) && compactionPart(message)),
  )
}

/** A summary that finished without error; only these end the history before them. */
export function isCompletedSummary(info: Assistant): boolean {
  return info.summary === true && info.finish !== undefined && info.error === undefined
}

export function compactionPart(message: WithParts): CompactionPart | undefined {
  return message.parts.find((part): part is CompactionPart => part.type === "compaction")
}

/** The ID of the summary a filtered history starts with, if it starts with a completed compaction. */
export function latestSummaryID(visible: readonly WithParts[]): string | undefined {
  const first = visible[0]
  const second = visible[1]?.info
  return first && compactionPart(first) && second?.role === "assistant" && isCompletedSummary(second)
    ? second.id
    : undefined
}
