import type { WithParts } from "../message/info.js"
import type { ModelRef } from "../message/part.js"
import type { StoredDecision, ToolCallRef } from "../schema/ask.js"

/** A tool call a stopped process left waiting, with the answer that resumes it. */
export type Resume = ToolCallRef & { decision: StoredDecision }

/** One run of a session's loop, from its start until it answers (or stops). */
export type RunState = {
  abort: AbortController
  /** When it started (milliseconds since the epoch): a cancel sent before it does not stop it. */
  startedAt: number
  /** Prompts that joined the run, taken in before the next model call. */
  incoming: WithParts[]
  /** The run starts with a compaction the host asked for. */
  compact?: { model: ModelRef | undefined } | undefined
  /** Tool calls a stopped process left waiting, with their answers: the run finishes them first. */
  resumes: Resume[]
  /** A bare loop() waits while calls of a stopped process wait for answers, rather than dropping them. */
  holdForAnswers?: boolean
  /** A bare loop() goes on with a turn that a stopped process cut off (see `wasCut`). */
  continueCut?: boolean
  /** Callers waiting on the run, and how many of those aborted their signal: all of them cancel it. */
  callers: { waiting: number; aborted: number }
  /** With a coordinator: this process owns the session and the run has started (see owned-run.ts). */
  owned?: boolean
  /** The session's messages as the run keeps them, once loaded: the callers' turn results read them. */
  history?: WithParts[]
  /**
   * The run looked for joined prompts for the last time and is ending (its turn's diff, its
   * lease): a prompt now waits for it to end and gets a run of its own (see `takesPrompts`).
   */
  closed?: boolean
}

export type Run = RunState & { done: Promise<WithParts> }

/**
 * Ends the run's intake when no joined prompt waits to be taken in: called where the run looks at
 * `incoming` for the last time before it answers, in the same synchronous stretch as its answer,
 * so that a prompt joins either before (and is answered by this run) or after (and starts its own).
 */
export function closeIfNoneJoined(run: RunState): boolean {
  if (run.incoming.length > 0) return false
  run.closed = true
  return true
}

/** Whether a prompt stored now is still taken in by this run: not once it closed or was cancelled. */
export function takesPrompts(run: RunState): boolean {
  return run.closed !== true && !run.abort.signal.aborted
}
