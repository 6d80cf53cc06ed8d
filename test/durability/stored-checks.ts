import { Decimal } from "decimal.js"
import type { MessageV2, Permission, Session, Storage } from "../../src/index.js"
import type { Acks } from "./acks.js"
import type { RunPlan } from "./plan.js"

/**
 * Check b: every write the child acknowledged is there, whole: the session, each user message
 * with its text, each answer with its final text and finish. Returns what is missing.
 */
export async function lostWrites(
  storage: Storage,
  sessionID: string | undefined,
  acks: Acks,
  plan: RunPlan,
): Promise<string[]> {
  if (acks.sessionID !== undefined && !(await storage.getSession(acks.sessionID)))
    return [`session ${acks.sessionID} is gone`]
  if (sessionID === undefined) return []
  const stored = new Map((await storage.listMessages(sessionID)).map((message) => [message.info.id, message]))
  const lost: string[] = []
  for (const { messageID, index } of acks.users) {
    const message = stored.get(messageID)
    const question = plan.prompts[index]?.question
    if (message?.info.role !== "user") lost.push(`user message ${messageID} is gone`)
    else if (!texts(message).includes(question ?? ""))
      lost.push(`user message ${messageID} lost its text part`)
  }
  for (const { messageID, index } of acks.answers) {
    const message = stored.get(messageID)
    const answer = plan.prompts[index]?.answer
    if (message?.info.role !== "assistant") lost.push(`answer ${messageID} is gone`)
    else if (message.info.time.completed === undefined || message.info.finish !== "stop")
      lost.push(`answer ${messageID} lost its completion (finish ${message.info.finish})`)
    else if (!texts(message).includes(answer ?? "")) lost.push(`answer ${messageID} lost its text part`)
  }
  return lost
}

/**
 * Check b, after repair: every text or reasoning part clients were told of is still there (the
 * trials' model never fails, so no attempt is retried and dropped).
 */
export function lostParts(after: readonly MessageV2.WithParts[], acks: Acks): string[] {
  const stored = new Map(after.map((message) => [message.info.id, message]))
  return acks.parts.flatMap(({ messageID, partID }) =>
    stored.get(messageID)?.parts.some((part) => part.id === partID)
      ? []
      : [`part ${partID} of ${messageID}, which clients were told of, is gone after repair`],
  )
}

/**
 * Check c, on the messages as runtime.session.messages returned them (repaired): nothing is left
 * half-written, except a tool call (and its message) that a stored permission request still
 * waits on. `before` is the same session read straight from storage, before the repair.
 */
export function unrepairedRows(
  before: readonly MessageV2.WithParts[],
  after: readonly MessageV2.WithParts[],
  pending: readonly Permission.Request[],
): string[] {
  // A tool waiting on a stored permission request may stay running: a reply resumes it.
  const waiting = new Set(pending.flatMap((request) => (request.tool ? [key(request.tool)] : [])))
  // Cut off mid-step: neither the step's finish nor the message's end was written.
  const cutOff = new Set(
    before.flatMap(({ info }) =>
      info.role === "assistant" && info.time.completed === undefined && info.finish === undefined
        ? [info.id]
        : [],
    ),
  )
  const problems: string[] = []
  for (const { info, parts } of after) {
    if (info.role !== "assistant") continue
    const found: string[] = []
    // A message whose call waits on a stored request is still in progress: the reply resumes it.
    const asks = parts.some(
      (part) => part.type === "tool" && waiting.has(key({ messageID: info.id, callID: part.callID })),
    )
    if (!asks) {
      if (info.time.completed === undefined) found.push("no time.completed")
      if (info.finish === undefined && info.error === undefined) found.push("neither finish nor error")
      if (cutOff.has(info.id) && info.error?.name !== "AbortedError")
        found.push(`cut off but its error is ${info.error?.name ?? "missing"}, not AbortedError`)
    }
    for (const part of parts) {
      const problem = partProblem(part, waiting)
      if (problem) found.push(`${part.type} part ${part.id} ${problem}`)
    }
    // One line per message: a cut-off message usually fails several ways at once.
    if (found.length > 0) problems.push(`message ${info.id}: ${found.join(", ")}`)
  }
  return problems
}

function partProblem(part: MessageV2.Part, waiting: ReadonlySet<string>): string | undefined {
  if (part.type === "tool") {
    const { status } = part.state
    if ((status === "pending" || status === "running") && !waiting.has(key(part)))
      return `is still ${status} with no permission request waiting on it`
    // The probe tool never fails by itself: an error can only be an interruption.
    if (part.state.status === "error" && part.state.metadata?.interrupted !== true)
      return `is an error without metadata.interrupted (${part.state.error})`
  }
  if (part.type === "text" || part.type === "reasoning") {
    // Empty is fine: its text never reached a checkpoint, and clients were told of the part.
    if (part.time?.end === undefined) return "has no time.end"
  }
  return undefined
}

/** Check d: the session's cost and tokens are the sums of its assistant messages'. */
export function costMismatch(session: Session.Info, messages: readonly MessageV2.WithParts[]): string[] {
  let cost = new Decimal(0)
  const tokens = { input: 0, output: 0, reasoning: 0, read: 0, write: 0 }
  for (const { info } of messages) {
    if (info.role !== "assistant") continue
    cost = cost.plus(info.cost)
    tokens.input += info.tokens.input
    tokens.output += info.tokens.output
    tokens.reasoning += info.tokens.reasoning
    tokens.read += info.tokens.cache.read
    tokens.write += info.tokens.cache.write
  }
  const problems: string[] = []
  if (cost.minus(session.cost).abs().greaterThan(1e-9))
    problems.push(`session cost ${session.cost} but its messages add up to ${cost.toString()}`)
  const { input, output, reasoning, cache } = session.tokens
  const own = { input, output, reasoning, read: cache.read, write: cache.write }
  if (JSON.stringify(own) !== JSON.stringify(tokens))
    problems.push(
      `session tokens ${JSON.stringify(own)} but its messages add up to ${JSON.stringify(tokens)}`,
    )
  return problems
}

function texts(message: MessageV2.WithParts): string[] {
  return message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))
}

function key(call: { messageID: string; callID: string }): string {
  return `${call.messageID} ${call.callID}`
}
