import type { Bus } from "../bus/bus.js"
import { SessionMovedError } from "../coordination/session-moved-error.js"
import { UnknownError } from "../message/errors.js"
import {
  compactionPart,
  filterCompacted,
  isCompletedSummary,
  latestSummaryID,
} from "../message/filter-compacted.js"
import type { User, WithParts } from "../message/info.js"
import type { ModelRef } from "../message/part.js"
import type { StoredDecision, ToolCallRef } from "../schema/ask.js"
import type { Status } from "../schema/session.js"
import type { Storage } from "../storage/port.js"
import { type LoopContext, NoUserMessageError } from "./context.js"
import type { LoopDeps, StatusRegistry } from "./loop-deps.js"
import { abortedAnswer } from "./model-call.js"
import { createReadRepair, createSessionWork, type ReadRepair, type SessionWork } from "./read-repair.js"
import { repairMessages, storageFailed } from "./repair.js"
import { finishWaitingCalls, heldForAnswers, type Resume } from "./resume.js"
import { trackHistory } from "./run-history.js"
import { runSteps } from "./steps.js"

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
  /** With a coordinator: this process owns the session and the run has started (see executeOwnedRun). */
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

type StartOptions = Partial<Pick<RunState, "compact" | "resumes" | "holdForAnswers" | "continueCut">>

/** The registry's state: the runs by session, the work outside runs, the repairs on read. */
type Registry = { context: LoopContext; runs: Map<string, Run>; work: SessionWork; repairs: ReadRepair }

/**
 * The sessions this runtime is running: one run per session, which joined prompts share; its
 * status; cancel and stop; answers that resume a stopped process's waiting calls; and the work
 * it does on sessions outside runs (shell commands), which repair on read leaves alone.
 */
export function createRunRegistry(context: LoopContext) {
  const runs = new Map<string, Run>()
  const work = createSessionWork()
  const repairs = createReadRepair(context, (sessionID) => runs.has(sessionID) || work.has(sessionID))
  const registry: Registry = { context, runs, work, repairs }
  return {
    get: (sessionID: string) => runs.get(sessionID),
    start: (sessionID: string, options?: StartOptions) => start(registry, sessionID, options),
    join: (sessionID: string, message: WithParts) => join(registry, sessionID, message),
    resume: (call: ToolCallRef, decision: StoredDecision) => resume(registry, call, decision),
    /** Repairs what a stopped process left in a session this runtime is not working on and has not run. */
    repairIfIdle: repairs.ifIdle,
    /** Forgets what this runtime knew of removed sessions. */
    forget: repairs.forget,
    enterWork: (sessionID: string) => enterWork(registry, sessionID),
    settled: (sessionID: string) => settled(registry, sessionID),
    takeRemotePrompt: (sessionID: string, messageID: string) =>
      takeRemotePrompt(registry, sessionID, messageID),
    stop: (sessionIDs: readonly string[]) => stop(registry, sessionIDs),
    /** Cancels every run; resolves when they have settled. */
    stopAll: () => stop(registry, [...runs.keys()]),
  }
}

export type RunRegistry = ReturnType<typeof createRunRegistry>

/**
 * The run that answers a prompt whose message was just stored: the session's run while it
 * still takes prompts in (it reads the message at its next step), else a new one; undefined
 * while the session's run is ending (its caller waits for it to end, then asks again).
 */
function join(registry: Registry, sessionID: string, message: WithParts): Run | undefined {
  const running = registry.runs.get(sessionID)
  if (!running) return start(registry, sessionID)
  if (!takesPrompts(running)) return undefined
  running.incoming.push(message)
  return running
}

function start(registry: Registry, sessionID: string, options: StartOptions = {}): Run {
  const { context } = registry
  const state: RunState = {
    abort: new AbortController(),
    startedAt: Date.now(),
    incoming: [],
    resumes: [],
    callers: { waiting: 0, aborted: 0 },
    ...options,
  }
  context.deps.status.set(sessionID, { type: "busy" })
  // A repair on read under way goes first: it would take the run's first writes for leftovers.
  const repairing = registry.repairs.settled(sessionID)
  const execute = () => executeOwnedRun(context, sessionID, state)
  const done = (repairing ? repairing.then(execute) : execute())
    .then((answer) => withDiff(context.deps, sessionID, answer), storageFailed(context, sessionID, state))
    .finally(() => ended(registry, sessionID, state))
  // The same object as the run sees, so what it marks (owned) is seen through the registry.
  const run = Object.assign(state, { done })
  registry.runs.set(sessionID, run)
  return run
}

/**
 * The turn's diff is a view of what the snapshots recorded: it can be had again from
 * session.diff, so a failure to compute it does not fail the turn.
 */
async function withDiff(deps: LoopDeps, sessionID: string, answer: WithParts): Promise<WithParts> {
  const userID = answer.info.role === "assistant" ? answer.info.parentID : undefined
  await deps.files.summarize(sessionID, userID).catch(() => undefined)
  return answer
}

function ended(registry: Registry, sessionID: string, state: RunState): void {
  registry.runs.delete(sessionID)
  registry.context.deps.status.set(sessionID, { type: "idle" })
  // Answers that arrived after this run had passed its resumes get a run of their own.
  const left = state.resumes.splice(0)
  if (left.length > 0) startResumes(registry, sessionID, left)
}

function startResumes(registry: Registry, sessionID: string, resumes: Resume[]): void {
  start(registry, sessionID, { resumes }).done.catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    const { bus } = registry.context.deps
    bus.publish("session.error", { sessionID, error: new UnknownError({ message }).toObject() })
  })
}

/**
 * Finishes a tool call that a stopped process left waiting for this answer, then goes on
 * with the turn, in the background: the caller (a reply) returns once the run is registered.
 */
function resume(registry: Registry, call: ToolCallRef, decision: StoredDecision): void {
  const running = registry.runs.get(call.sessionID)
  if (running) running.resumes.push({ ...call, decision })
  else startResumes(registry, call.sessionID, [{ ...call, decision }])
}

/** Cancels the runs of these sessions and waits until they have stopped writing. */
async function stop(registry: Registry, sessionIDs: readonly string[]): Promise<void> {
  const stopping = sessionIDs.flatMap((sessionID) => {
    const run = registry.runs.get(sessionID)
    run?.abort.abort()
    return run ? [run.done] : []
  })
  await Promise.allSettled(stopping)
}

/**
 * Records work on the session outside a run (a user's shell command), until `end`: reads of
 * the session leave it alone, and a cancel waits for it. `ready` resolves once what a stopped
 * process left in the session is closed: the work writes only then.
 */
function enterWork(registry: Registry, sessionID: string): { ready: Promise<void>; end(): void } {
  const end = registry.work.enter(sessionID)
  return { ready: registry.repairs.beforeWork(sessionID), end }
}

/**
 * Resolves once the session's cancelled runs (a prompt that waited for one to end may start
 * another, cancelled too) and its work outside runs have ended.
 */
async function settled(registry: Registry, sessionID: string): Promise<void> {
  const { runs } = registry
  const ended = async () => {
    for (let run = runs.get(sessionID); run; run = runs.get(sessionID)) {
      await run.done.catch(() => undefined)
      const next = runs.get(sessionID)
      if (next && !next.abort.signal.aborted) return
    }
  }
  await Promise.all([ended(), registry.work.settled(sessionID)])
}

/** A prompt another process stored: a run this process owns takes it in at its next step. */
async function takeRemotePrompt(registry: Registry, sessionID: string, messageID: string): Promise<void> {
  const run = registry.runs.get(sessionID)
  if (!run?.owned) return
  const message = await registry.context.deps.storage.getMessage(sessionID, messageID)
  // A run that is ending leaves it to the run of the process that stored it.
  if (message?.info.role === "user" && registry.runs.get(sessionID) === run && takesPrompts(run))
    run.incoming.push(message)
}

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

/** Each session's loop status, in memory: a session without an entry is idle. */
export function createStatusRegistry(bus: Bus): StatusRegistry {
  const statuses = new Map<string, Status>()
  return {
    get(sessionID: string): Status {
      return statuses.get(sessionID) ?? { type: "idle" }
    },
    active(): Record<string, Status> {
      return Object.fromEntries(statuses)
    },
    set(sessionID: string, status: Status): void {
      if (status.type === "idle") statuses.delete(sessionID)
      else statuses.set(sessionID, status)
      bus.publish("session.status", { sessionID, status })
      if (status.type === "idle") bus.publish("session.idle", { sessionID })
    },
  }
}

/**
 * A run of a session that other processes may also run (a coordinator is configured): it starts
 * once this process owns the session, so one model call at a time happens per session across
 * processes, and it is cancelled if ownership is lost (SessionMovedError when another process
 * took the session). Prompts that another process stored meanwhile are already in the history
 * it loads; a caller cancelled while another process runs the session gets the session's latest
 * message.
 */
async function executeOwnedRun(context: LoopContext, sessionID: string, run: RunState): Promise<WithParts> {
  const { coordinator, storage } = context.deps
  if (!coordinator) return executeRun(context, sessionID, run)
  const lease = await coordinator.claim(sessionID, { wait: true, signal: run.abort.signal })
  if (!lease) {
    const [latest] = await storage.listMessages(sessionID, { limit: 1 })
    if (!latest) throw run.abort.signal.reason
    return latest
  }
  run.owned = true
  const onLost = () => run.abort.abort()
  lease.lost.addEventListener("abort", onLost, { once: true })
  let answer: WithParts
  try {
    answer = await executeRun(context, sessionID, run)
  } finally {
    lease.lost.removeEventListener("abort", onLost)
    // A lease whose link broke is gone already; the answer stands.
    await lease.release().catch(() => undefined)
  }
  // The session goes on in another process: the callers hear that, not of a cancelled turn.
  if (SessionMovedError.isInstance(lease.lost.reason)) throw lease.lost.reason
  return answer
}

/**
 * One run of a session: first the tool calls a stopped process left waiting that now have their
 * answer (given to this process, or recorded for one that stopped before acting on it; see
 * resume.ts), then (unless the turn still waits) the stored history, repaired (repair.ts), and
 * steps until the latest user message is answered. A cancel while waiting outside a model call
 * (a hook) still ends the turn with an answer.
 */
async function executeRun(context: LoopContext, sessionID: string, run: RunState): Promise<WithParts> {
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
    const held = await heldForAnswers(context, sessionID)
    if (held && closeIfNoneJoined(run)) return held
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
    return last.info.role === "assistant" ? last : cancelledBeforeCall(context, sessionID, user)
  }
}

/** Newest messages read first; most compacted sessions keep fewer since their latest compaction. */
export const HISTORY_PAGE = 100

/**
 * The messages a run needs, oldest first: everything from the latest completed compaction's
 * retained tail on, when the newest page holds all of that, else the whole session. A long
 * session that was compacted then starts a run in time that follows what the model sees, not
 * the session's length; one that was not pays one page more than a full load.
 */
export async function loadHistory(storage: Storage, sessionID: string): Promise<WithParts[]> {
  const page = await storage.listMessages(sessionID, { limit: HISTORY_PAGE })
  if (page.length < HISTORY_PAGE) return page
  const visible = filterCompacted(page)
  if (latestSummaryID(visible) !== undefined) {
    const tailStartID = compactionPart(visible[0]!)?.tailStartID
    if (tailStartID === undefined || tailStartID >= page[0]!.info.id) return page
  }
  return storage.listMessages(sessionID)
}

/**
 * A run on a loaded history: a compaction first when the host asked for one, then steps until
 * the exit rule holds (steps.ts), then pruning; again while prompts joined meanwhile.
 */
async function runUntilAnswered(
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

/**
 * The answer of a turn cancelled before its model call. A compaction request's answer is an
 * aborted summary, so that `filterCompacted` leaves it out together with its request.
 */
async function cancelledBeforeCall(
  context: LoopContext,
  sessionID: string,
  message: WithParts,
): Promise<WithParts> {
  const session = await context.deps.session.get(sessionID)
  const user = message.info as User
  const compaction = compactionPart(message) !== undefined
  return abortedAnswer(context.deps, {
    sessionID,
    user,
    agent: compaction ? context.deps.agents.compaction! : context.agentOf(user.agent),
    model: context.provider().getModel(user.model),
    directory: session.directory,
    ...(compaction ? { summary: true } : {}),
  })
}
