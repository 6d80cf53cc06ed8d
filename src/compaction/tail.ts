import type { WithParts } from "../message/info.js"
import { estimateMessage } from "./estimate.js"

/**
 * Where the retained tail starts: the first message of the latest `turns` turns (a turn is a user
 * message and the answers after it) whose estimated tokens fit `budget`. When not even the latest
 * turn fits, the tail keeps the newest messages of that turn that do. Returns undefined when
 * nothing is kept. `messages` are the candidates, oldest first.
 */
export function selectTail(
  messages: readonly WithParts[],
  options: { turns: number; budget: number },
): string | undefined {
  let start = messages.length
  let used = 0
  for (let kept = 0; kept < options.turns && start > 0; kept++) {
    let turnStart = start - 1
    while (turnStart > 0 && messages[turnStart]!.info.role !== "user") turnStart--
    const turn = messages.slice(turnStart, start).map(estimateMessage)
    const cost = turn.reduce((sum, tokens) => sum + tokens, 0)
    if (used + cost <= options.budget) {
      used += cost
      start = turnStart
      continue
    }
    // Only the latest turn is split: an older turn's answers without its question mislead more than they help.
    if (kept === 0)
      for (let index = turn.length - 1; index >= 0 && used + turn[index]! <= options.budget; index--) {
        used += turn[index]!
        start = turnStart + index
      }
    break
  }
  return messages[start]?.info.id
}
