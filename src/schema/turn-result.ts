import type { AssistantError } from "../message/errors.js"
import type { WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import type { Totals } from "./session.js"

/** Who refused a tool call (see `ToolStateError.refusedBy`). */
export type RefusedBy = NonNullable<Extract<ToolPart["state"], { status: "error" }>["refusedBy"]>

/**
 * Why a turn ended. `rejected`: a permission or question the user or the host refused stopped
 * it (with `rejection: "stop"`, the default); `max-steps`: the agent's `steps` ran out and the
 * last step answered without tools; `no-reply`: a prompt with `noReply` stored its message only.
 */
export type TurnFinish =
  | {
      reason: "stop" | "length" | "content-filter" | "max-steps" | "structured-output" | "no-reply" | "other"
    }
  | { reason: "rejected"; callID: string; tool: string; by: RefusedBy }
  | { reason: "aborted" | "error"; error: AssistantError }

/** Tokens and cost summed over steps; `costUnknown` when a step's model had no known prices. */
export type TurnUsage = Totals & { costUnknown?: boolean }

/**
 * What a turn did: the final message (`info`, `parts`, as `prompt` always resolved with) and
 * around it the user message it answered, every step, the final text, the tool calls, why it
 * ended, and what it cost. Steps are the assistant messages after the user message (a turn
 * that compacted includes the summary); `usage` sums them, `subagents` sums the sessions
 * the turn's task calls ran (with their own sub-agents).
 */
export type TurnResult = WithParts & {
  sessionID: string
  /** The user message the turn answers: the prompt's own. */
  user: WithParts
  steps: WithParts[]
  /** The final message's text parts, joined. */
  text: string
  /** Every tool call of the turn's steps, in order, with its state (input, output or error). */
  toolCalls: ToolPart[]
  finish: TurnFinish
  usage: TurnUsage
  subagents: TurnUsage
  /** The structured answer of a prompt with `format: { type: "json_schema" }`. */
  structured?: unknown
}

/**
 * What `session.loop` and `session.compact` resolve with: a TurnResult whose user message is the
 * session's latest, undefined when the history the run ended with holds none (a loop has no
 * prompt of its own to fall back on).
 */
export type LoopResult = Omit<TurnResult, "user"> & { user: WithParts | undefined }
