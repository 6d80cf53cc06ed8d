import { COMPACTION_CONTINUE } from "../agent/prompts/compaction.js"
import type { CompactionConfig } from "../compaction/config.js"
import { estimateTokens } from "../compaction/estimate.js"
import { asNote, holdsMedia, isMedia } from "../compaction/media.js"
import { tailBudget, usable } from "../compaction/overflow.js"
import { selectPrune } from "../compaction/prune.js"
import { buildSummaryRequest, type SummaryLevel, type SummaryRequest } from "../compaction/summary-request.js"
import { selectTail } from "../compaction/tail.js"
import { ContextOverflowError, UnknownError } from "../message/errors.js"
import {
  compactionPart,
  filterCompacted,
  isCompletedSummary,
  latestSummaryID,
} from "../message/filter-compacted.js"
import type { User, WithParts } from "../message/info.js"
import type { ModelRef, Part } from "../message/part.js"
import { UnknownModelError } from "../provider/errors.js"
import type { Provider } from "../provider/provider.js"
import { callSettings } from "./call-settings.js"
import type { LoopDeps } from "./loop-deps.js"
import { type CallModel, failAnswer } from "./model-call.js"

const TOO_LARGE =
  "The session is too large to compact: even a reduced summary request exceeds the model's context window."

/** What the compaction tasks work with: the loop's deps, its model call and provider. */
type Compaction = { deps: LoopDeps; call: CallModel; provider: () => Provider; config: CompactionConfig }

/**
 * Compaction as the loop runs it: storing a compaction request with its retained tail, writing
 * the summary (squeezing the request harder once if it does not fit, never more), the message
 * that resumes the work afterwards, and pruning old tool outputs.
 */
export function createCompactionTasks(deps: LoopDeps, call: CallModel, provider: () => Provider) {
  const compaction: Compaction = { deps, call, provider, config: deps.compaction }
  return {
    request: (input: RequestInput) => request(compaction, input),
    run: (input: TaskInput & { abort: AbortSignal }) => run(compaction, input),
    resume: (input: TaskInput) => resume(compaction, input),
    prune: (sessionID: string, history: readonly WithParts[]) => prune(compaction, sessionID, history),
  }
}

type RequestInput = {
  sessionID: string
  history: readonly WithParts[]
  auto: boolean
  overflow?: boolean
  agent: string
  /** The model of the turn, which goes on after the summary. */
  model: ModelRef
  /** The model that writes the summary; default: the compaction agent's, else the turn's. */
  summaryModel?: ModelRef | undefined
}

/** A compaction request `task` in the session's `history` (the whole history, oldest first). */
type TaskInput = { sessionID: string; history: readonly WithParts[]; task: WithParts }

/** Stores a compaction request after `history` (the whole history, oldest first). */
async function request(compaction: Compaction, input: RequestInput): Promise<WithParts> {
  const { deps, config } = compaction
  const visible = filterCompacted(input.history)
  const previous = latestSummaryID(visible)
  const candidates =
    previous === undefined ? visible : visible.filter((message) => message.info.id > previous)
  const summaryModel = input.summaryModel ?? deps.agents.compaction?.model ?? input.model
  const budget = tailBudget(tailModel(compaction.provider(), input.model, summaryModel).info, config)
  const tailStartID = retainedTail(config, candidates, budget, input.overflow === true)
  const id = await deps.session.newMessageID(input.sessionID)
  const user: User = {
    id,
    sessionID: input.sessionID,
    role: "user",
    time: { created: Date.now() },
    agent: input.agent,
    model: summaryModel,
  }
  const part: Part = {
    id: deps.session.newPartID(id),
    sessionID: input.sessionID,
    messageID: id,
    type: "compaction",
    auto: input.auto,
    ...(input.overflow ? { overflow: true } : {}),
    ...(tailStartID === undefined ? {} : { tailStartID }),
  }
  return deps.session.saveMessage({ info: user, parts: [part] })
}

/** Where the retained tail of `candidates` starts, or undefined to keep none. */
function retainedTail(
  config: CompactionConfig,
  candidates: readonly WithParts[],
  budget: number,
  overflow: boolean,
) {
  let start = selectTail(candidates, { turns: config.tailTurns, budget })
  // A tail that keeps everything new would leave the summary nothing to take in: keep one turn less.
  if (start !== undefined && start === candidates[0]?.info.id) {
    const turns = candidates.filter((message) => message.info.role === "user").length - 1
    start = turns > 0 ? selectTail(candidates, { turns, budget }) : undefined
  }
  // After an overflow, a tail with media would send the provider the very files it refused: the
  // summary takes them in as notes instead, and resume() replays the request with notes.
  const from = start
  if (overflow && from !== undefined && candidates.some((m) => m.info.id >= from && holdsMedia(m)))
    return undefined
  return from
}

/**
 * Answers the compaction request `task` with a summary of the history before its tail, and
 * returns the messages it added: the summary (completed or failed) and, after an automatic
 * compaction, the message that resumes the work.
 */
async function run(compaction: Compaction, input: TaskInput & { abort: AbortSignal }): Promise<WithParts[]> {
  const { deps } = compaction
  const { sessionID, task } = input
  const answer = await summarise(compaction, input)
  const summary = answer.message
  if (answer.outcome === "compact")
    return [await failAnswer(deps, summary.info, new ContextOverflowError({ message: TOO_LARGE }).toObject())]
  if (summary.info.error || input.abort.aborted) return [summary]
  if (!isCompletedSummary(summary.info)) {
    const error = new UnknownError({ message: "The summary ended without finishing" }).toObject()
    return [await failAnswer(deps, summary.info, error)]
  }
  deps.bus.publish("session.compacted", { sessionID })
  if (!compactionPart(task)!.auto) return [summary]
  return [summary, await resume(compaction, { sessionID, history: input.history, task })]
}

/**
 * The summary call: at most two, the normal request (unless it plainly does not fit), then a
 * reduced one.
 */
async function summarise(compaction: Compaction, input: TaskInput & { abort: AbortSignal }) {
  const { deps, config } = compaction
  const { sessionID, task } = input
  const part = compactionPart(task)!
  const taskUser = task.info as User
  const before = visibleBefore(input.history, task)
  const summarised =
    part.tailStartID === undefined ? before : before.filter((message) => message.info.id < part.tailStartID!)
  const agent = deps.agents.compaction!
  const target = compaction.provider().getModel(taskUser.model)
  const session = await deps.session.get(sessionID)
  const { system, ...params } = await callSettings(deps, {
    session,
    agent,
    model: target,
    user: taskUser,
    withoutUserSystem: true,
    abort: input.abort,
  })
  const budget = Math.floor(usable(target.info, config) * 0.9) - estimateTokens(system)
  const { protectedTools } = config
  const build = (level: SummaryLevel) =>
    buildSummaryRequest({ history: summarised, model: target.info, level, budget, protectedTools })
  const call = (summaryRequest: SummaryRequest) =>
    compaction.call({
      ...{ sessionID, abort: input.abort, user: taskUser, agent, model: target },
      directory: session.directory,
      request: { system, messages: summaryRequest.messages, tools: [], ...params },
      summary: true,
    })
  const normal = await build("normal")
  const fits = normal.tokens < budget
  const answer = await call(fits ? normal : await build("reduced"))
  if (answer.outcome !== "compact" || !fits) return answer
  await deps.session.removeMessage({ sessionID, messageID: answer.message.info.id })
  return call(await build("reduced"))
}

/**
 * What follows an automatic compaction: the user's latest request again when the summary
 * swallowed it (so the model reads it verbatim), else a note to continue.
 */
async function resume(compaction: Compaction, input: TaskInput): Promise<WithParts> {
  const { deps } = compaction
  const { tailStartID, overflow } = compactionPart(input.task)!
  const before = visibleBefore(input.history, input.task)
  const latest = before.findLast(isRequest)
  const kept = latest !== undefined && tailStartID !== undefined && latest.info.id >= tailStartID
  // The turn goes on with its own agent and model, not the summary's.
  const turn =
    latest ?? before.findLast((message) => message.info.role === "user" && !compactionPart(message))
  const from = (turn ?? input.task).info as User
  const id = await deps.session.newMessageID(input.sessionID)
  const base = { sessionID: input.sessionID, messageID: id }
  const replay = latest && !kept ? latest.parts.flatMap((part) => replayed(part, overflow === true)) : []
  const parts: Part[] =
    replay.length > 0
      ? replay.map((part) => ({ ...part, ...base, id: deps.session.newPartID(id) }) as Part)
      : [
          {
            ...base,
            id: deps.session.newPartID(id),
            type: "text",
            text: COMPACTION_CONTINUE,
            synthetic: true,
          },
        ]
  const { id: _, time: __, ...rest } = from
  return deps.session.saveMessage({ info: { ...rest, id, time: { created: Date.now() } }, parts })
}

/** Clears old tool outputs when prune is on; one atomic write. */
async function prune(
  compaction: Compaction,
  sessionID: string,
  history: readonly WithParts[],
): Promise<void> {
  const { deps, config } = compaction
  if (!config.prune) return
  const selection = selectPrune(history, { protectedTools: config.protectedTools })
  if (selection.parts.length === 0) return
  const now = Date.now()
  const parts = selection.parts.map((part) => ({
    ...part,
    state: { ...part.state, time: { ...part.state.time, compacted: now } },
  }))
  await deps.storage.write(parts.map((part) => ({ type: "part.put", part })))
  for (const part of parts) deps.bus.publish("message.part.updated", { sessionID, part })
}

export type CompactionTasks = ReturnType<typeof createCompactionTasks>

/**
 * The model the retained tail must fit: the turn's, which goes on after the summary; the
 * summary's when the provider no longer serves the turn's (a compaction with a model of its
 * own must not need the history's, and the next turn will choose a model anyway).
 */
function tailModel(provider: Provider, turn: ModelRef, summary: ModelRef) {
  try {
    return provider.getModel(turn)
  } catch (error) {
    if (UnknownModelError.isInstance(error)) return provider.getModel(summary)
    throw error
  }
}

/** What the model saw before the compaction request `task`. */
function visibleBefore(history: readonly WithParts[], task: WithParts): WithParts[] {
  return filterCompacted(history.filter((message) => message.info.id < task.info.id))
}

/** A message the user wrote: not a compaction request, not only synthetic text. */
function isRequest(message: WithParts): boolean {
  if (message.info.role !== "user" || compactionPart(message)) return false
  return message.parts.some((part) => (part.type === "text" && !part.synthetic) || part.type === "file")
}

/** What of the request goes again; after an overflow its media go as notes, not as the files refused. */
function replayed(part: Part, overflow: boolean): Part[] {
  if (part.type === "text" && !part.ignored) return [part]
  if (part.type === "file") return [overflow && isMedia(part) ? asNote(part) : part]
  return []
}
