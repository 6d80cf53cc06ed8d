import type { ModelMessage } from "ai"
import type { AgentInfo } from "../agent/info.js"
import { MAX_STEPS } from "../agent/prompts/index.js"
import { isOverflow } from "../compaction/overflow.js"
import { AbortedError } from "../message/errors.js"
import { compactionPart, isCompletedSummary, latestSummaryID } from "../message/filter-compacted.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import { DOOM_LOOP_THRESHOLD } from "../processor/doom-loop.js"
import { create as createProcessor } from "../processor/processor.js"
import type { Model } from "../provider/provider.js"
import { callSettings } from "./call-settings.js"
import { type LoopContext, NoUserMessageError } from "./context.js"
import { finishedSinceCompaction, isFinal, overflowError, turnToolParts } from "./exit-rule.js"
import type { LoopDeps } from "./loop-deps.js"
import { type CallInput, type CallResult, failAnswer, newAssistant, storedAnswer } from "./model-call.js"
import { wasCut } from "./repair.js"
import { nextRetry, sleep } from "./retry.js"
import type { RunHistory } from "./run-history.js"
import {
  STRUCTURED_FINAL_STEP,
  STRUCTURED_OUTPUT_SYSTEM,
  STRUCTURED_OUTPUT_TOOL,
  settleStructured,
  structuredFormat,
  structuredOutputTool,
} from "./structured-output.js"
import { pendingSubtasks, runSubtask } from "./subtask.js"

/** What of a run (run.ts `RunState`) its steps read: its cancel, joined prompts, and how it started. */
export type StepsRun = { abort: AbortController; incoming: WithParts[]; continueCut?: boolean }

/** The steps of one run, shared by the parts of a pass. */
type Steps = {
  context: LoopContext
  sessionID: string
  run: StepsRun
  abort: AbortSignal
  tracked: RunHistory
  /** Model calls made so far (1 for the turn's first). */
  count: number
}

/** One pass of the loop: the latest user message, the newest message, and what the model sees. */
type Pass = { user: WithParts; last: WithParts; visible: WithParts[] }

/** The step's model, and the last finished step since a compaction (for the overflow check). */
type Target = { userInfo: User; model: Model; finished: ReturnType<typeof finishedSinceCompaction> }

/** The pass wrote something that the next pass reads (a compaction, a resume, a subtask). */
const AGAIN = Symbol("again")

/**
 * Steps until the latest user message is answered: compactions when the window fills up,
 * subtasks, then one model call per step until the exit rule holds.
 */
export async function runSteps(
  context: LoopContext,
  sessionID: string,
  run: StepsRun,
  tracked: RunHistory,
): Promise<WithParts> {
  const steps: Steps = { context, sessionID, run, abort: run.abort.signal, tracked, count: 0 }
  for (;;) {
    for (const message of run.incoming.splice(0))
      if (!tracked.messages.some((known) => known.info.id === message.info.id)) tracked.append(message)
    // What the model sees; the newest messages are read from the history, where order is time.
    const visible = tracked.visible()
    const user = tracked.latestUser()
    if (!user) throw new NoUserMessageError({ message: `Session ${sessionID} has no user message to answer` })
    const pass: Pass = { user, last: tracked.messages.at(-1)!, visible }
    const early = (await answeredAlready(steps, pass)) ?? (await compactionTask(steps, pass))
    if (early === AGAIN) continue
    if (early) return early
    const model = context.provider().getModel((user.info as User).model)
    const target: Target = { userInfo: user.info as User, model, finished: finishedSinceCompaction(visible) }
    const outcome = (await overflowOrSubtask(steps, pass, target)) ?? (await takeStep(steps, pass, target))
    if (outcome !== AGAIN) return outcome
  }
}

/** The turn's answer when it is there already: settled, final, or the run was cancelled. */
async function answeredAlready(
  steps: Steps,
  { user, last }: Pass,
): Promise<WithParts | typeof AGAIN | undefined> {
  const { context, sessionID, abort, tracked } = steps
  const settled = await settleStructured(context.deps, tracked, user, last)
  if (settled) return settled
  // loop() after a crash: the cut step stays as repair recorded it, and a new step follows.
  const resumesCut =
    steps.run.continueCut === true && steps.count === 0 && last.info.role === "assistant" && wasCut(last.info)
  if (last.info.role === "assistant" && isFinal(last, user) && !resumesCut) {
    // An automatic compaction whose resume message a crash prevented: resume now.
    if (!isCompletedSummary(last.info) || !compactionPart(user)?.auto || abort.aborted) return last
    const history = tracked.messages as WithParts[]
    tracked.append(await context.compaction.resume({ sessionID, history, task: user }))
    return AGAIN
  }
  if (abort.aborted && last.info.role === "assistant") return last
  return undefined
}

/** A compaction request to answer: its summary. */
async function compactionTask(steps: Steps, { user, last }: Pass): Promise<typeof AGAIN | undefined> {
  if (!compactionPart(user)) return undefined
  const { context, sessionID, abort, tracked } = steps
  // A summary that neither finished nor failed was cut off by a crash: write it again.
  if (last !== user) await drop(context, tracked, last)
  const history = tracked.messages as WithParts[]
  tracked.append(...(await context.compaction.run({ sessionID, abort, history, task: user })))
  return AGAIN
}

/** A compaction when the window filled up, or a subtask the user asked for, before the next step. */
async function overflowOrSubtask(
  steps: Steps,
  { user }: Pass,
  { userInfo, model, finished }: Target,
): Promise<WithParts | typeof AGAIN | undefined> {
  const { context, sessionID, abort, tracked } = steps
  const history = tracked.messages as WithParts[]
  if (
    finished &&
    isOverflow({ tokens: finished.tokens, model: model.info, config: context.deps.compaction })
  ) {
    const target = { sessionID, agent: userInfo.agent, model: userInfo.model }
    tracked.append(await context.compaction.request({ ...target, history, auto: true }))
    return AGAIN
  }
  const [subtask] = pendingSubtasks(history, user)
  if (!subtask) return undefined
  tracked.append(await runSubtask(context, { sessionID, abort, user: userInfo, part: subtask }))
  return abort.aborted ? history.at(-1)! : AGAIN
}

/** The next model call, and what its answer means for the turn. */
async function takeStep(
  steps: Steps,
  { user, visible }: Pass,
  { userInfo, model, finished }: Target,
): Promise<WithParts | typeof AGAIN> {
  const { context, sessionID, abort, tracked } = steps
  const { deps } = context
  const stepNumber = ++steps.count
  const agent = context.agentOf(userInfo.agent)
  const finalStep = agent.steps !== undefined && stepNumber >= agent.steps
  const input = { sessionID, abort, history: visible, user: userInfo, agent, model, finalStep, stepNumber }
  const answer = await step(context, input)
  if (answer.outcome === "compact") {
    // Compacting again right after a compaction would only repeat it.
    const justCompacted = latestSummaryID(visible) !== undefined && finished === undefined
    if (!deps.compaction.auto || justCompacted || abort.aborted)
      return failAnswer(deps, answer.message.info, overflowError(justCompacted))
    await drop(context, tracked, answer.message)
    const target = { sessionID, agent: userInfo.agent, model: userInfo.model }
    const history = tracked.messages as WithParts[]
    tracked.append(await context.compaction.request({ ...target, history, auto: true, overflow: true }))
    return AGAIN
  }
  tracked.append(answer.message)
  const answered = await settleStructured(deps, tracked, user, answer.message, finalStep)
  if (answered) return answered
  if (answer.outcome !== "continue" || finalStep || abort.aborted) return answer.message
  return AGAIN
}

async function drop(context: LoopContext, tracked: RunHistory, message: WithParts): Promise<void> {
  const { sessionID, id: messageID } = message.info
  await context.deps.session.removeMessage({ sessionID, messageID })
  tracked.remove(message)
}

/**
 * One step: what the model is sent (history, system prompt, settings, tools under the step's
 * rules) and one model call through the processor, stored as one assistant message. The last
 * step an agent is allowed runs without tools and is told to wrap up.
 */
export async function step(
  context: LoopContext,
  input: {
    sessionID: string
    abort: AbortSignal
    history: WithParts[]
    user: User
    agent: AgentInfo
    model: Model
    finalStep: boolean
    /** 1 for the turn's first model call. */
    stepNumber: number
  },
): Promise<CallResult> {
  const { deps } = context
  const { sessionID, abort, history, user, agent, model, finalStep, stepNumber } = input
  const session = await deps.session.get(sessionID)
  const ruleset = await context.rulesFor(session, agent)
  const messages: ModelMessage[] = await context.modelMessages(history, model.info)
  const format = structuredFormat(user)
  if (finalStep) messages.push({ role: "user", content: format ? STRUCTURED_FINAL_STEP : MAX_STEPS })
  const settings = await callSettings(deps, { session, agent, model, user, abort }, context.systemPrompts)
  // After the settings, which resolve the turn's instruction sources: a source may refresh what
  // a tool's description lists (the skills), so the first step's descriptions see it too.
  const offeredTo = { providerID: user.model.providerID, modelID: providerModelID(model) }
  const tools = finalStep ? [] : deps.tools.enabled({ ruleset, switches: user.tools, model: offeredTo })
  // A structured answer is a tool call the host asked for: no rule hides it, and the model
  // must call a tool every step until it gives it (on the last step, only this one).
  if (format) {
    tools.push(structuredOutputTool(format))
    settings.system = `${settings.system}\n\n${STRUCTURED_OUTPUT_SYSTEM}`
  }
  const toolChoice = !format
    ? undefined
    : finalStep
      ? ({ type: "tool", toolName: STRUCTURED_OUTPUT_TOOL } as const)
      : ("required" as const)
  return callModel(deps, {
    sessionID,
    abort,
    user,
    agent,
    model,
    directory: session.directory,
    request: {
      ...settings,
      messages,
      tools,
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ruleset,
      metadata: { sessionID, agent: agent.name, step: stepNumber },
    },
    // Repeats are counted over the last few calls; twice the threshold leaves room for calls
    // whose IDs a provider reuses, which the guard skips.
    turn: turnToolParts(history, user.id, DOOM_LOOP_THRESHOLD * 2),
    snapshotFrom: previousStepEnd(history, user, stepNumber),
  })
}

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

/**
 * One model call as an assistant message, through the processor, retried while the provider's
 * error is transient: each retry replaces the failed attempt's message and starts with a `retry`
 * part, waits are shown as the session's status, and the final error is stored and published.
 */
export async function callModel(deps: LoopDeps, input: CallInput): Promise<CallResult> {
  const { sessionID, abort } = input
  let retried: Assistant["error"]
  for (let attempt = 0; ; attempt++) {
    const assistant = await newAssistant(deps, input)
    // Otherwise the processor writes the message with its first part.
    if (retried?.name === "APIError") await startRetry(deps, assistant, attempt, retried)
    const processor = createProcessor({
      runtime: { session: deps.session, permission: deps.permission },
      assistantMessage: assistant,
      model: input.model,
      abort,
      hooks: deps.hooks,
      ...(deps.onToolError ? { onToolError: deps.onToolError } : {}),
      stream: deps.modelStream,
      rejection: input.agent.rejection ?? deps.rejection,
      ...(deps.streamIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: deps.streamIdleTimeoutMs }),
      ...(input.turn ? { turn: input.turn } : {}),
      ...(deps.snapshot && !input.summary ? { snapshot: deps.snapshot } : {}),
      // A failed attempt may have changed files before it was dropped: a retry scans.
      ...(input.snapshotFrom && attempt === 0 ? { snapshotFrom: input.snapshotFrom } : {}),
    })
    const outcome = await processor.process(input.request)
    const error = processor.message().error
    if (outcome === "compact" || !error)
      return { message: await storedAnswer(deps, sessionID, assistant.id), outcome }
    const retry = abort.aborted ? undefined : nextRetry(attempt + 1, error, deps.retry)
    if (!retry) {
      deps.bus.publish("session.error", { sessionID, error })
      return { message: await storedAnswer(deps, sessionID, assistant.id), outcome }
    }
    const next = Date.now() + retry.delayMs
    deps.status.set(sessionID, { type: "retry", attempt: attempt + 1, message: retry.message, next })
    try {
      await sleep(retry.delayMs, abort)
    } catch {
      const aborted = new AbortedError({ message: "The operation was aborted." }).toObject()
      return { message: await failAnswer(deps, processor.message(), aborted), outcome: "stop" }
    }
    // The failed attempt's partial output is dropped so the retry does not repeat it.
    await deps.session.removeMessage({ sessionID, messageID: assistant.id })
    retried = error
    deps.status.set(sessionID, { type: "busy" })
  }
}

/** A retry's message is written before its call, with a `retry` part saying why. */
async function startRetry(
  deps: LoopDeps,
  assistant: Assistant,
  attempt: number,
  error: Extract<NonNullable<Assistant["error"]>, { name: "APIError" }>,
): Promise<void> {
  await deps.session.updateMessage(assistant)
  await deps.session.updatePart({
    id: deps.session.newPartID(assistant.id),
    sessionID: assistant.sessionID,
    messageID: assistant.id,
    type: "retry",
    attempt,
    error,
    time: { created: Date.now() },
  })
}

/**
 * The model's ID as its provider names it (`gpt-5`), which says what it was trained on; the
 * runtime's own reference may be an alias (`default`, `fast`).
 */
function providerModelID(model: Model): string {
  return typeof model.language === "string" ? model.language : model.language.modelId
}
