import { isOverflow } from "../compaction/overflow.js"
import { compactionPart, isCompletedSummary, latestSummaryID } from "../message/filter-compacted.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { LoopContext } from "./context.js"
import { finishedSinceCompaction, isFinal, overflowError } from "./exit-rule.js"
import { NoUserMessageError } from "./loop-errors.js"
import { wasCut } from "./repair.js"
import { type RunHistory, trackHistory } from "./run-history.js"
import { closeIfNoneJoined, type RunState } from "./run-state.js"
import { step } from "./step.js"
import { structuredFormat, structuredOutputError, structuredVerdict } from "./structured-output.js"
import { pendingSubtasks, runSubtask } from "./subtask.js"

/**
 * A run on a loaded history: a compaction first when the host asked for one, then steps until
 * the exit rule holds, then pruning; again while prompts joined meanwhile.
 */
export async function runUntilAnswered(
  context: LoopContext,
  sessionID: string,
  run: RunState,
  history: WithParts[],
): Promise<WithParts> {
  const tracked = trackHistory(history)
  if (run.compact) {
    const latest = history.findLast((message) => message.info.role === "user" && !compactionPart(message))
      ?.info as User | undefined
    if (!latest) throw new NoUserMessageError({ message: `Session ${sessionID} has nothing to compact` })
    // Nothing happened since the last summary: a new one would only restate it.
    const newest = history.at(-1)!
    if (newest.info.role === "assistant" && isCompletedSummary(newest.info) && closeIfNoneJoined(run))
      return newest
    const { agent, model } = latest
    const summaryModel = run.compact.model
    tracked.append(
      await context.compaction.request({ sessionID, history, auto: false, agent, model, summaryModel }),
    )
  }
  for (;;) {
    const answer = await runSteps(context, sessionID, run, tracked)
    if (run.abort.signal.aborted) return answer
    await context.compaction.prune(sessionID, history)
    // A prompt that joined while prune was writing still needs its answer.
    if (closeIfNoneJoined(run)) return answer
  }
}

/** Steps until the latest user message is answered: compactions when the window fills up. */
async function runSteps(
  context: LoopContext,
  sessionID: string,
  run: RunState,
  tracked: RunHistory,
): Promise<WithParts> {
  const { compaction, deps } = context
  const abort = run.abort.signal
  const history = tracked.messages
  let steps = 0
  while (true) {
    for (const message of run.incoming.splice(0))
      if (!history.some((known) => known.info.id === message.info.id)) tracked.append(message)
    // What the model sees; the newest messages are read from the history, where order is time.
    const visible = tracked.visible()
    const user = tracked.latestUser()
    if (!user) throw new NoUserMessageError({ message: `Session ${sessionID} has no user message to answer` })
    const last = history.at(-1)!
    const settled = await settleStructured(context, tracked, user, last)
    if (settled) return settled
    // loop() after a crash: the cut step stays as repair recorded it, and a new step follows.
    const resumesCut =
      run.continueCut === true && steps === 0 && last.info.role === "assistant" && wasCut(last.info)
    if (last.info.role === "assistant" && isFinal(last, user) && !resumesCut) {
      // An automatic compaction whose resume message a crash prevented: resume now.
      if (!isCompletedSummary(last.info) || !compactionPart(user)?.auto || abort.aborted) return last
      tracked.append(await compaction.resume({ sessionID, history, task: user }))
      continue
    }
    if (abort.aborted && last.info.role === "assistant") return last

    const userInfo = user.info as User
    if (compactionPart(user)) {
      // A summary that neither finished nor failed was cut off by a crash: write it again.
      if (last !== user) await drop(context, tracked, last)
      tracked.append(...(await compaction.run({ sessionID, abort, history, task: user })))
      continue
    }
    const model = context.provider().getModel(userInfo.model)
    const finished = finishedSinceCompaction(visible)
    const target = { sessionID, agent: userInfo.agent, model: userInfo.model }
    if (finished && isOverflow({ tokens: finished.tokens, model: model.info, config: deps.compaction })) {
      tracked.append(await compaction.request({ ...target, history, auto: true }))
      continue
    }

    const [subtask] = pendingSubtasks(history, user)
    if (subtask) {
      tracked.append(await runSubtask(context, { sessionID, abort, user: userInfo, part: subtask }))
      if (abort.aborted) return history.at(-1)!
      continue
    }

    steps++
    const agent = context.agentOf(userInfo.agent)
    const finalStep = agent.steps !== undefined && steps >= agent.steps
    const answer = await step(context, {
      sessionID,
      abort,
      history: visible,
      user: userInfo,
      agent,
      model,
      finalStep,
      stepNumber: steps,
    })
    if (answer.outcome === "compact") {
      // Compacting again right after a compaction would only repeat it.
      const justCompacted = latestSummaryID(visible) !== undefined && finished === undefined
      if (!deps.compaction.auto || justCompacted || abort.aborted)
        return context.call.fail(answer.message.info, overflowError(justCompacted))
      await drop(context, tracked, answer.message)
      tracked.append(await compaction.request({ ...target, history, auto: true, overflow: true }))
      continue
    }
    tracked.append(answer.message)
    const answered = await settleStructured(context, tracked, user, answer.message, finalStep)
    if (answered) return answered
    if (answer.outcome !== "continue" || finalStep || abort.aborted) return answer.message
  }
}

/**
 * A structured turn ends when its answer settles (see structuredVerdict): the valid object is
 * stored on the message as `structured`, or the message fails with a StructuredOutputError.
 * Checked before the exit rule, so a run after a crash between the call and this write ends
 * the turn the same way.
 */
async function settleStructured(
  context: LoopContext,
  tracked: RunHistory,
  user: WithParts,
  last: WithParts,
  lastStep = false,
): Promise<WithParts | undefined> {
  const format = structuredFormat(user.info as User)
  if (!format || last.info.role !== "assistant" || last.info.structured !== undefined) return undefined
  const verdict = structuredVerdict(format, tracked.messages, user, last, lastStep)
  if (!verdict) return undefined
  const info = last.info
  const settled =
    "error" in verdict
      ? await context.call.fail(info, structuredOutputError(verdict.error))
      : await context.call.settle({ ...info, structured: verdict.structured as Assistant["structured"] })
  tracked.replace(last, settled)
  return settled
}

async function drop(context: LoopContext, tracked: RunHistory, message: WithParts): Promise<void> {
  const { sessionID, id: messageID } = message.info
  await context.deps.session.removeMessage({ sessionID, messageID })
  tracked.remove(message)
}
