import { NotFoundError } from "../error/not-found.js"
import { compactionPart } from "../message/filter-compacted.js"
import type { User, WithParts } from "../message/info.js"
import type { LoopContext } from "./context.js"
import { loadHistory } from "./load-history.js"
import { repairMessages } from "./repair.js"
import { resumeToolCall } from "./resume.js"
import { closeIfNoneJoined, type Resume, type RunState } from "./run-state.js"
import { runUntilAnswered } from "./steps.js"

/**
 * One run of a session: first the tool calls a stopped process left waiting that now have their
 * answer (given to this process, or recorded for one that stopped before acting on it), then
 * (unless the turn still waits) the stored history, repaired, and steps until the latest user
 * message is answered. A cancel while waiting outside a model call (a hook) still ends the turn
 * with an answer.
 */
export async function executeRun(context: LoopContext, sessionID: string, run: RunState): Promise<WithParts> {
  const { deps } = context
  // Answers forwarded to a process that stopped before acting on them are acted on here.
  await deps.asks.resumeRecorded(sessionID)
  // A prompt that joined meanwhile moves the session on, whatever still waits.
  if (run.resumes.length > 0) {
    const held = await finishWaitingCalls(context, sessionID, run)
    if (held && closeIfNoneJoined(run)) return held
  }
  // Requests left by this process's own turn that storage failed under wait for no one: their
  // answer was given here and could not be recorded, or their caller is gone. The run moves on.
  const failedHere = context.storageFailures.has(sessionID)
  if (run.holdForAnswers && !failedHere && run.incoming.length === 0) {
    const waiting = await deps.asks.storedCalls(sessionID)
    const [latest] = waiting.size > 0 ? await deps.storage.listMessages(sessionID, { limit: 1 }) : []
    if (latest && waitsOn(latest, waiting) && closeIfNoneJoined(run)) return latest
  }
  // What a stopped process left open is closed before this run reads the history; asks it
  // left waiting are answered "no": this run moves past them.
  await deps.asks.forgetStored(sessionID)
  const why = context.storageFailures.get(sessionID)
  const history = await repairMessages(deps, await loadHistory(deps.storage, sessionID), undefined, why)
  run.history = history
  context.storageFailures.delete(sessionID)
  context.repaired.set(sessionID, true)
  try {
    // Cancelled before its first step (a prompt that waited for the previous run to end): no model call.
    run.abort.signal.throwIfAborted()
    return await runUntilAnswered(context, sessionID, run, history)
  } catch (error) {
    const user = history.findLast((message) => message.info.role === "user")
    if (!run.abort.signal.aborted || error !== run.abort.signal.reason || !user) throw error
    const last = history.at(-1)!
    return last.info.role === "assistant" ? last : abortedAnswer(context, sessionID, user)
  }
}

/**
 * Whether the latest message is a step whose call still waits for a stored request. A request
 * can outlive its call: one answered here whose removal failed lets the call go on, and stays
 * stored. Such a request, or a newer message, holds nothing: the run moves past it.
 */
function waitsOn(latest: WithParts, waiting: ReadonlySet<string>): boolean {
  return (
    latest.info.role === "assistant" &&
    latest.parts.some(
      (part) =>
        part.type === "tool" &&
        waiting.has(part.callID) &&
        (part.state.status === "running" || part.state.status === "pending"),
    )
  )
}

/**
 * Runs the answered calls; the turn goes on (undefined) once its step has no call left
 * waiting. Otherwise the run ends here with the step's message: after a user's "no", while a
 * sibling call still waits for its own answer, or when nothing was waiting any more.
 */
async function finishWaitingCalls(
  context: LoopContext,
  sessionID: string,
  run: RunState,
): Promise<WithParts | undefined> {
  let resumed: Resume | undefined
  const waiting = async () =>
    new Set([...(await context.deps.asks.storedCalls(sessionID)), ...run.resumes.map((next) => next.callID)])
  for (let next = run.resumes.shift(); next; next = run.resumes.shift()) {
    const outcome = await resumeCall(context, next, run.abort.signal, waiting)
    if (outcome?.blocked) return stored(context, sessionID, next.messageID)
    if (outcome) resumed = next
  }
  if (resumed && (await waiting()).size === 0) return undefined
  const [latest] = await context.deps.storage.listMessages(sessionID, { limit: 1 })
  return resumed ? stored(context, sessionID, resumed.messageID) : latest
}

async function resumeCall(
  context: LoopContext,
  resume: Resume,
  abort: AbortSignal,
  waiting: () => Promise<Set<string>>,
) {
  const { deps } = context
  const message = await deps.storage.getMessage(resume.sessionID, resume.messageID)
  if (message?.info.role !== "assistant") return undefined
  const session = await deps.session.get(resume.sessionID)
  const agent = context.agentOf(message.info.agent)
  const ruleset = await context.rulesFor(session, agent)
  return resumeToolCall(deps, { ...resume, agent, ruleset, abort, waiting })
}

async function stored(context: LoopContext, sessionID: string, messageID: string): Promise<WithParts> {
  const message = await context.deps.storage.getMessage(sessionID, messageID)
  if (!message) throw NotFoundError.of("Message", messageID)
  return message
}

/**
 * The answer of a turn cancelled before its model call. A compaction request's answer is an
 * aborted summary, so that `filterCompacted` leaves it out together with its request.
 */
async function abortedAnswer(
  context: LoopContext,
  sessionID: string,
  message: WithParts,
): Promise<WithParts> {
  const session = await context.deps.session.get(sessionID)
  const user = message.info as User
  const compaction = compactionPart(message) !== undefined
  return context.call.aborted({
    sessionID,
    user,
    agent: compaction ? context.deps.agents.compaction! : context.agentOf(user.agent),
    model: context.provider().getModel(user.model),
    directory: session.directory,
    ...(compaction ? { summary: true } : {}),
  })
}
