import type { ModelMessage } from "ai"
import { z } from "zod"
import type { Info as AgentInfo } from "../agent/info.js"
import { MAX_STEPS } from "../agent/prompts/index.js"
import { getAgent } from "../agent/resolve.js"
import { isOverflow } from "../compaction/overflow.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import { parseID } from "../id/parse-id.js"
import { ContextOverflowError, UnknownError } from "../message/errors.js"
import {
  compactionPart,
  filterCompacted,
  isCompletedSummary,
  latestSummaryID,
} from "../message/filter-compacted.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import { ModelRef, type Part, type ToolPart } from "../message/part.js"
import { toModelMessages } from "../message/to-model-messages.js"
import { merge } from "../permission/rules.js"
import { sessionRules } from "../permission/session-rules.js"
import type { Model } from "../provider/provider.js"
import type { Info as SessionInfo } from "../session/info.js"
import { isDefaultTitle } from "../session/title.js"
import { abortable } from "./abortable.js"
import { callSettings } from "./call-settings.js"
import { createCompactionTasks } from "./compaction-task.js"
import { generateTitle } from "./generate-title.js"
import { loadHistory } from "./load-history.js"
import type { LoopDeps } from "./loop-deps.js"
import { MissingProviderError, NoUserMessageError } from "./loop-errors.js"
import { type CallResult, createModelCall } from "./model-call.js"
import { assertNewMessageID, assertPromptable } from "./prompt-checks.js"
import { PromptInput, type PromptInput as PromptInputType, type PromptPart } from "./prompt-input.js"
import { repairMessages, repairSession } from "./repair.js"
import { resumeToolCall, type StoredDecision, type ToolCallRef } from "./resume.js"

type RunState = {
  abort: AbortController
  /** Prompts that joined the run, taken in before the next model call. */
  incoming: WithParts[]
  /** The run starts with a compaction the host asked for. */
  compact?: { model: ModelRef | undefined } | undefined
  /** Tool calls a stopped process left waiting, with their answers: the run finishes them first. */
  resumes: Resume[]
  /** A bare loop() waits while calls of a stopped process wait for answers, rather than dropping them. */
  holdForAnswers?: boolean
}
type Resume = ToolCallRef & { decision: StoredDecision }
type Run = RunState & { done: Promise<WithParts> }

const CompactInput = z.strictObject({ sessionID: z.string(), model: ModelRef.optional() })
export type CompactInput = z.input<typeof CompactInput>

/**
 * The prompt loop: stores user messages, and runs one loop per session that calls the model
 * step after step while it asks for tools. Prompts to a busy session join its loop.
 */
export function createLoop(deps: LoopDeps) {
  const runs = new Map<string, Run>()
  // Sessions whose leftovers from a stopped process were closed (or that this runtime ran).
  const repaired = new Set<string>()
  const titles = new Map<string, Promise<void>>()
  // Aborts on close: titles stop, and hooks outside a run stop being waited for.
  const closing = new AbortController()
  const call = createModelCall(deps)
  const compaction = createCompactionTasks(deps, call, provider)

  function provider() {
    if (!deps.provider)
      throw new MissingProviderError({ message: "runtime.session.prompt needs createRuntime({ provider })" })
    return deps.provider
  }

  async function prompt(input: PromptInputType): Promise<WithParts> {
    deps.assertOpen()
    const parsed = parseInput("session.prompt input", PromptInput, input)
    const session = await deps.session.get(parsed.sessionID)
    const agentPart = parsed.parts.findLast((part) => part.type === "agent")
    const agent = agentOf(parsed.agent ?? agentPart?.name ?? deps.defaultAgent)
    assertPromptable(agent)
    const model = parsed.model ?? agent.model ?? refOf(provider().defaultModel())
    provider().getModel(model)

    if (parsed.messageID !== undefined) await assertNewMessageID(deps.storage, session.id, parsed.messageID)
    const id = parsed.messageID ?? (await deps.session.newMessageID(session.id))
    const info: User = {
      id,
      sessionID: session.id,
      role: "user",
      time: { created: Date.now() },
      agent: agent.name,
      model,
      ...(parsed.system === undefined ? {} : { system: parsed.system }),
      ...(parsed.tools === undefined ? {} : { tools: parsed.tools }),
      ...(parsed.variant === undefined ? {} : { variant: parsed.variant }),
    }
    const message: WithParts = { info, parts: parsed.parts.map((part) => toPart(part, session.id, id)) }
    const hookInput = { sessionID: session.id, agent: agent.name, abort: closing.signal }
    await abortable(deps.hooks["chat.message"]?.(hookInput, message), closing.signal)
    await deps.session.saveMessage(message)
    await deps.session.touch(session.id)
    if (!session.parentID && isDefaultTitle(session.title)) startTitle(session.id, message)
    if (parsed.noReply) return message

    const running = runs.get(session.id)
    if (running) {
      running.incoming.push(message)
      return running.done
    }
    return start(session.id)
  }

  function toPart(part: PromptPart, sessionID: string, messageID: string): Part {
    const base = { id: deps.session.newPartID(messageID), sessionID, messageID }
    if (part.type === "text") return { ...base, ...part }
    return { ...base, ...part } as Part
  }

  const agentOf = (name: string) => getAgent(deps.agents, name)

  async function loop(sessionID: string): Promise<WithParts> {
    deps.assertOpen()
    const session = await deps.session.get(sessionID)
    return runs.get(session.id)?.done ?? start(session.id, { holdForAnswers: true })
  }

  async function compact(input: CompactInput): Promise<WithParts> {
    deps.assertOpen()
    const parsed = parseInput("session.compact input", CompactInput, input)
    const session = await deps.session.get(parsed.sessionID)
    if (parsed.model) provider().getModel(parsed.model)
    // A compaction in the middle of a turn would end it: wait until the session is idle.
    for (let running = runs.get(session.id); running; running = runs.get(session.id))
      await running.done.catch(() => undefined)
    return start(session.id, { compact: { model: parsed.model } })
  }

  function start(
    sessionID: string,
    options: Partial<Pick<RunState, "compact" | "resumes" | "holdForAnswers">> = {},
  ): Promise<WithParts> {
    const state: RunState = { abort: new AbortController(), incoming: [], resumes: [], ...options }
    deps.status.set(sessionID, { type: "busy" })
    const done = execute(sessionID, state).finally(() => {
      runs.delete(sessionID)
      deps.status.set(sessionID, { type: "idle" })
      // Answers that arrived after this run had passed its resumes get a run of their own.
      const left = state.resumes.splice(0)
      if (left.length > 0) startResumes(sessionID, left)
    })
    runs.set(sessionID, { ...state, done })
    return done
  }

  function startResumes(sessionID: string, resumes: Resume[]): void {
    start(sessionID, { resumes }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      deps.bus.publish("session.error", { sessionID, error: new UnknownError({ message }).toObject() })
    })
  }

  async function execute(sessionID: string, run: RunState): Promise<WithParts> {
    // A prompt that joined meanwhile moves the session on, whatever still waits.
    if (run.resumes.length > 0) {
      const held = await finishWaitingCalls(sessionID, run)
      if (held && run.incoming.length === 0) return held
    }
    if (run.holdForAnswers && (await deps.asks.storedCalls(sessionID)).size > 0) {
      const [latest] = await deps.storage.listMessages(sessionID, { limit: 1 })
      if (latest && run.incoming.length === 0) return latest
    }
    // What a stopped process left open is closed before this run reads the history; asks it
    // left waiting are answered "no": this run moves past them.
    await deps.asks.forgetStored(sessionID)
    const history = await repairMessages(deps, await loadHistory(deps.storage, sessionID))
    repaired.add(sessionID)
    try {
      return await runUntilAnswered(sessionID, run, history)
    } catch (error) {
      // Cancelled while waiting outside a model call (a hook): the turn still ends with an answer.
      const user = history.findLast((message) => message.info.role === "user")
      if (!run.abort.signal.aborted || error !== run.abort.signal.reason || !user) throw error
      const last = history.at(-1)!
      return last.info.role === "assistant" ? last : abortedAnswer(sessionID, user.info as User)
    }
  }

  /**
   * Runs the answered calls; the turn goes on (undefined) once its step has no call left
   * waiting. Otherwise the run ends here with the step's message: after a user's "no", while a
   * sibling call still waits for its own answer, or when nothing was waiting any more.
   */
  async function finishWaitingCalls(sessionID: string, run: RunState): Promise<WithParts | undefined> {
    let resumed: Resume | undefined
    const waiting = async () =>
      new Set([...(await deps.asks.storedCalls(sessionID)), ...run.resumes.map((next) => next.callID)])
    for (let next = run.resumes.shift(); next; next = run.resumes.shift()) {
      const outcome = await resumeCall(next, run.abort.signal, waiting)
      if (outcome?.blocked) return stored(sessionID, next.messageID)
      if (outcome) resumed = next
    }
    if (resumed && (await waiting()).size === 0) return undefined
    const [latest] = await deps.storage.listMessages(sessionID, { limit: 1 })
    return resumed ? stored(sessionID, resumed.messageID) : latest
  }

  async function resumeCall(resume: Resume, abort: AbortSignal, waiting: () => Promise<Set<string>>) {
    const message = await deps.storage.getMessage(resume.sessionID, resume.messageID)
    if (message?.info.role !== "assistant") return undefined
    const session = await deps.session.get(resume.sessionID)
    const agent = agentOf(message.info.agent)
    const ruleset = await rulesFor(session, agent)
    return resumeToolCall(deps, { ...resume, agent, ruleset, abort, waiting })
  }

  async function stored(sessionID: string, messageID: string): Promise<WithParts> {
    const message = await deps.storage.getMessage(sessionID, messageID)
    if (!message) throw NotFoundError.of("Message", messageID)
    return message
  }

  async function abortedAnswer(sessionID: string, user: User): Promise<WithParts> {
    const session = await deps.session.get(sessionID)
    return call.aborted({
      sessionID,
      user,
      agent: agentOf(user.agent),
      model: provider().getModel(user.model),
      directory: session.directory,
    })
  }

  async function runUntilAnswered(
    sessionID: string,
    run: RunState,
    history: WithParts[],
  ): Promise<WithParts> {
    if (run.compact) {
      const latest = history.findLast((message) => message.info.role === "user" && !compactionPart(message))
        ?.info as User | undefined
      if (!latest) throw new NoUserMessageError({ message: `Session ${sessionID} has nothing to compact` })
      // Nothing happened since the last summary: a new one would only restate it.
      const newest = history.at(-1)!
      if (newest.info.role === "assistant" && isCompletedSummary(newest.info)) return newest
      history.push(
        await compaction.request({
          sessionID,
          history,
          auto: false,
          agent: latest.agent,
          model: latest.model,
          summaryModel: run.compact.model,
        }),
      )
    }
    for (;;) {
      const answer = await runSteps(sessionID, run, history)
      if (run.abort.signal.aborted) return answer
      await compaction.prune(sessionID, history)
      // A prompt that joined while prune was writing still needs its answer.
      if (run.incoming.length === 0) return answer
    }
  }

  async function runSteps(sessionID: string, run: RunState, history: WithParts[]): Promise<WithParts> {
    let steps = 0
    while (true) {
      for (const message of run.incoming.splice(0))
        if (!history.some((known) => known.info.id === message.info.id)) history.push(message)
      // What the model sees; the newest messages are read from the history, where order is time.
      const visible = filterCompacted(history)
      const user = history.findLast((message) => message.info.role === "user")
      if (!user)
        throw new NoUserMessageError({ message: `Session ${sessionID} has no user message to answer` })
      const last = history.at(-1)!
      if (last.info.role === "assistant" && isFinal(last, user)) {
        // An automatic compaction whose resume message a crash prevented: resume now.
        if (isCompletedSummary(last.info) && compactionPart(user)?.auto && !run.abort.signal.aborted) {
          history.push(await compaction.resume({ sessionID, history, task: user }))
          continue
        }
        return last
      }
      if (run.abort.signal.aborted && last.info.role === "assistant") return last

      const userInfo = user.info as User
      if (compactionPart(user)) {
        // A summary that neither finished nor failed was cut off by a crash: write it again.
        if (last !== user) await drop(history, last)
        history.push(...(await compaction.run({ sessionID, abort: run.abort.signal, history, task: user })))
        continue
      }
      const model = provider().getModel(userInfo.model)
      const finished = finishedSinceCompaction(visible)
      const target = { sessionID, agent: userInfo.agent, model: userInfo.model }
      if (finished && isOverflow({ tokens: finished.tokens, model: model.info, config: deps.compaction })) {
        history.push(await compaction.request({ ...target, history, auto: true }))
        continue
      }

      steps++
      const agent = agentOf(userInfo.agent)
      const finalStep = agent.steps !== undefined && steps >= agent.steps
      const answer = await step({ sessionID, run, history: visible, user: userInfo, agent, model, finalStep })
      if (answer.outcome === "compact") {
        // Compacting again right after a compaction would only repeat it.
        const justCompacted = latestSummaryID(visible) !== undefined && finished === undefined
        if (!deps.compaction.auto || justCompacted || run.abort.signal.aborted)
          return call.fail(answer.message.info, overflowError(justCompacted))
        await drop(history, answer.message)
        history.push(await compaction.request({ ...target, history, auto: true, overflow: true }))
        continue
      }
      history.push(answer.message)
      if (answer.outcome !== "continue" || finalStep || run.abort.signal.aborted) return answer.message
    }
  }

  async function step(input: {
    sessionID: string
    run: RunState
    history: WithParts[]
    user: User
    agent: AgentInfo
    model: Model
    finalStep: boolean
  }): Promise<CallResult> {
    const { sessionID, run, history, user, agent, model, finalStep } = input
    const session = await deps.session.get(sessionID)
    const ruleset = await rulesFor(session, agent)
    const tools = finalStep ? [] : deps.tools.enabled({ ruleset, switches: user.tools })
    const messages: ModelMessage[] = await toModelMessages(history, model.info)
    if (finalStep) messages.push({ role: "user", content: MAX_STEPS })
    const settings = await callSettings(deps, { session, agent, model, user, abort: run.abort.signal })
    return call.call({
      sessionID,
      abort: run.abort.signal,
      user,
      agent,
      model,
      directory: session.directory,
      request: { ...settings, messages, tools, ruleset },
      turn: turnToolParts(history, user.id),
    })
  }

  async function rulesFor(session: SessionInfo, agent: AgentInfo) {
    return merge(agent.permission, deps.permissionRules, await sessionRules(session, deps.storage))
  }

  async function drop(history: WithParts[], message: WithParts): Promise<void> {
    await deps.session.removeMessage({ sessionID: message.info.sessionID, messageID: message.info.id })
    const index = history.indexOf(message)
    if (index !== -1) history.splice(index, 1)
  }

  function startTitle(sessionID: string, message: WithParts) {
    const text = message.parts
      .flatMap((part) => (part.type === "text" && !part.synthetic && !part.ignored ? [part.text] : []))
      .join("\n")
    const agent = deps.agents.title
    if (titles.has(sessionID) || !text.trim() || !agent || !deps.provider) return
    const model = deps.provider.smallModel()
    const task = generateTitle({ model: model.language, agent, text, abort: closing.signal })
      .then(async (title) => {
        const current = await deps.session.get(sessionID)
        if (title && isDefaultTitle(current.title)) await deps.session.update(sessionID, { title })
      })
      .catch(() => undefined)
      .finally(() => titles.delete(sessionID))
    titles.set(sessionID, task)
  }

  return {
    prompt,
    loop,
    compact,
    /**
     * Finishes a tool call that a stopped process left waiting for this answer, then goes on
     * with the turn, in the background: the caller (a reply) returns once the run is registered.
     */
    resume(call: ToolCallRef, decision: StoredDecision): void {
      const running = runs.get(call.sessionID)
      if (running) running.resumes.push({ ...call, decision })
      else startResumes(call.sessionID, [{ ...call, decision }])
    },
    /** Repairs what a stopped process left in a session this runtime has not run yet. */
    async repairIfIdle(sessionID: string): Promise<void> {
      if (runs.has(sessionID) || repaired.has(sessionID)) return
      repaired.add(sessionID)
      try {
        await repairSession(deps, sessionID, await deps.asks.storedCalls(sessionID))
      } catch (error) {
        repaired.delete(sessionID)
        throw error
      }
    },
    cancel(sessionID: string): void {
      runs.get(parseID("sessionID", "session", sessionID))?.abort.abort()
    },
    /** Cancels the loops of these sessions and waits until they have stopped writing. */
    async stop(sessionIDs: readonly string[]): Promise<void> {
      const stopping = sessionIDs.flatMap((sessionID) => {
        const run = runs.get(sessionID)
        run?.abort.abort()
        return run ? [run.done] : []
      })
      await Promise.allSettled(stopping)
    },
    status: (sessionID: string) => deps.status.get(parseID("sessionID", "session", sessionID)),
    /** Cancels every loop and title, and waits for them to settle. */
    async close(): Promise<void> {
      closing.abort(new RuntimeClosedError({ message: "The runtime is closed" }))
      for (const run of runs.values()) run.abort.abort()
      await Promise.allSettled([...[...runs.values()].map((run) => run.done), ...titles.values()])
    },
  }
}

function isFinal(last: WithParts, user: WithParts): boolean {
  const info = last.info as Assistant
  if (info.id < user.info.id) return false
  if (info.error) return true
  const unfinished = last.parts.some(
    (part) => part.type === "tool" && (part.state.status === "pending" || part.state.status === "running"),
  )
  return info.finish !== undefined && info.finish !== "tool-calls" && info.finish !== "unknown" && !unfinished
}

/** Tool parts of the assistant messages answering the latest user message, oldest first. */
function turnToolParts(history: readonly WithParts[], userID: string): ToolPart[] {
  return history
    .filter((message) => message.info.role === "assistant" && message.info.id > userID)
    .flatMap((message) => message.parts.filter((part): part is ToolPart => part.type === "tool"))
}

function refOf(model: Model) {
  return { providerID: model.info.providerID, modelID: model.info.id }
}

function overflowError(afterCompaction: boolean): NonNullable<Assistant["error"]> {
  return new ContextOverflowError({
    message: afterCompaction
      ? "The conversation does not fit the model's context window even after compaction."
      : "The conversation no longer fits the model's context window, and automatic compaction is off.",
  }).toObject()
}

/** The newest answer that finished without error since the latest compaction, if any. */
function finishedSinceCompaction(visible: readonly WithParts[]): Assistant | undefined {
  const summaryID = latestSummaryID(visible)
  for (let index = visible.length - 1; index >= 0; index--) {
    const info = visible[index]!.info
    if (summaryID !== undefined && info.id <= summaryID) return undefined
    if (info.role === "assistant" && !info.summary && info.finish !== undefined && !info.error) return info
  }
  return undefined
}
