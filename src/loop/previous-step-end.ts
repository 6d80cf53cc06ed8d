import type { User, WithParts } from "../message/info.js"

/**
 * The state of the files the step before this one ended in, when this step follows it directly
 * in the same turn: the step then starts from it without scanning the tree. Undefined at a
 * turn's first step (the user may have changed files since the last turn), and when anything
 * else came between (a subtask, a compaction, a step cut short): the step then scans.
 */
export function previousStepEnd(
  history: readonly WithParts[],
  user: User,
  stepNumber: number,
): string | undefined {
  if (stepNumber <= 1) return undefined
  const last = history.at(-1)
  if (last?.info.role !== "assistant" || last.info.parentID !== user.id || last.info.summary) return undefined
  const end = last.parts.findLast((part) => part.type === "step-start" || part.type === "step-finish")
  return end?.type === "step-finish" ? end.snapshot : undefined
}
