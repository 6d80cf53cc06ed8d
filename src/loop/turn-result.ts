import { Decimal } from "decimal.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { Part, Tokens, ToolPart } from "../message/part.js"
import type { Totals } from "../schema/session.js"
import type { LoopResult, TurnFinish, TurnResult, TurnUsage } from "../schema/turn-result.js"
import { addTokens, treeUsage } from "../session/tree-usage.js"
import type { Storage } from "../storage/port.js"

type TurnInput = {
  /** The message the run resolved with: the final step, or the user message of a `noReply` prompt. */
  answer: WithParts
  /** The session's messages as the run left them, oldest first. */
  messages: WithParts[]
  /** The user message the caller is waiting for; default the latest. */
  userID?: string | undefined
  /** The agent's `steps`, to tell a turn that ran out of steps. */
  maxSteps?: number | undefined
}

/** What the turn that ended with `answer` did, for the caller waiting on `userID`. */
export async function turnResult(storage: Storage, input: TurnInput): Promise<LoopResult> {
  const { answer, messages } = input
  const at = input.userID
    ? messages.findIndex((message) => message.info.id === input.userID)
    : messages.findLastIndex((message) => message.info.role === "user")
  const user = at >= 0 ? messages[at] : undefined
  // Without its user message in view, the turn is known by its answer alone.
  const after = at >= 0 ? messages.slice(at + 1) : []
  const steps = answer.info.role === "user" ? [] : stepsAfter(after, answer)
  const toolCalls = steps.flatMap((step) =>
    step.parts.filter((part): part is ToolPart => part.type === "tool"),
  )
  const final = answer.info
  return {
    ...answer,
    sessionID: final.sessionID,
    user,
    steps,
    text: answerText(answer.parts),
    toolCalls,
    finish: finishOf(answer, user?.info.role === "user" ? user.info : undefined, steps, input.maxSteps),
    usage: sum(steps.map((step) => step.info as Assistant)),
    subagents: await subagentUsage(storage, toolCalls),
    ...(final.role === "assistant" && final.structured !== undefined ? { structured: final.structured } : {}),
  }
}

/**
 * A prompt's turn: its user message is the prompt's own, also when the messages the run ended
 * with no longer show it (then the turn is known by its answer alone, as turnResult says).
 */
export function promptTurn(result: LoopResult, prompt: WithParts): TurnResult {
  return { ...result, user: result.user ?? prompt }
}

/** A message's text parts, joined: what the model answered, less the parts left out of view. */
export function answerText(parts: Part[]): string {
  return parts.flatMap((part) => (part.type === "text" && !part.ignored ? [part.text] : [])).join("")
}

/** The assistant messages after the user message, the answer's latest version last. */
function stepsAfter(after: WithParts[], answer: WithParts): WithParts[] {
  const steps = after.filter(
    (message) => message.info.role === "assistant" && message.info.id !== answer.info.id,
  )
  return [...steps, answer]
}

function finishOf(
  answer: WithParts,
  user: User | undefined,
  steps: WithParts[],
  maxSteps?: number,
): TurnFinish {
  const info = answer.info
  if (info.role === "user") return { reason: "no-reply" }
  if (info.error)
    return { reason: info.error.name === "AbortedError" ? "aborted" : "error", error: info.error }
  const refused = answer.parts.find(
    (part): part is ToolPart =>
      part.type === "tool" && part.state.status === "error" && part.state.refusedBy !== undefined,
  )
  if (info.finish === "tool-calls" && refused?.state.status === "error" && refused.state.refusedBy !== "rule")
    return { reason: "rejected", callID: refused.callID, tool: refused.tool, by: refused.state.refusedBy! }
  if (user?.format && info.structured !== undefined) return { reason: "structured-output" }
  const modelSteps = steps.filter((step) => step.info.role === "assistant" && !step.info.summary).length
  if (maxSteps !== undefined && modelSteps >= maxSteps) return { reason: "max-steps" }
  if (info.finish === "stop" || info.finish === "length" || info.finish === "content-filter")
    return { reason: info.finish }
  return { reason: "other" }
}

/** Adds up steps, or sessions' totals; unknown when any of them was. */
function sum(items: { cost: number; tokens: Tokens; costUnknown?: boolean | undefined }[]): TurnUsage {
  let cost = new Decimal(0)
  let tokens: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
  let costUnknown = false
  for (const item of items) {
    cost = cost.plus(item.cost)
    tokens = addTokens(tokens, item.tokens)
    costUnknown ||= item.costUnknown === true
  }
  return { cost: cost.toNumber(), tokens, ...(costUnknown ? { costUnknown } : {}) }
}

/** The sessions the turn's task calls ran, each with its own sub-agents. */
async function subagentUsage(storage: Storage, toolCalls: ToolPart[]): Promise<TurnUsage> {
  const children = new Set<string>()
  for (const call of toolCalls) {
    const metadata = call.state.status === "pending" ? undefined : call.state.metadata
    if (call.tool === "task" && typeof metadata?.sessionID === "string") children.add(metadata.sessionID)
  }
  const totals: Totals[] = []
  for (const id of children) {
    const session = await storage.getSession(id)
    if (session) totals.push((await treeUsage(storage, session)).total)
  }
  return sum(totals)
}
