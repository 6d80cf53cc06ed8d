import type { AgentInfo } from "../agent/info.js"
import { NotFoundError } from "../error/not-found.js"
import type { Assistant, WithParts } from "../message/info.js"
import type { Part, ToolPart } from "../message/part.js"
import { CorrectedError, RejectedError as PermissionRejectedError } from "../permission/errors.js"
import { asksForPaths } from "../processor/asks-for-paths.js"
import { interrupted, STOPPED_TOOL } from "../processor/close.js"
import { refusedBy, stopsTurn } from "../processor/refusal.js"
import { evaluateUnder } from "../processor/tool-context.js"
import { RejectedError as QuestionRejectedError } from "../question/errors.js"
import { answeredResult } from "../question/tool.js"
import type { StoredDecision, ToolCallRef } from "../schema/ask.js"
import type { Ruleset } from "../schema/permission.js"
import type { QuestionInfo } from "../schema/question.js"
import { runTool } from "../tool/ai-tools.js"
import type { Context, Result } from "../tool/tool.js"
import { errorMessage } from "../tool/tool-error.js"
import { abortable } from "../util/abortable.js"
import { copyPlain } from "../util/copy-plain.js"
import type { LoopContext } from "./context.js"
import type { LoopDeps } from "./loop-deps.js"

/** A tool call a stopped process left waiting, with the answer that resumes it. */
export type Resume = ToolCallRef & { decision: StoredDecision }

/** What of a run its resumes read: the answers to act on, and its cancel. */
type ResumingRun = { resumes: Resume[]; abort: AbortController }

/**
 * A run's start, before its history (run.ts): the tool calls a stopped process left waiting
 * that now have their answer are finished first. Runs the answered calls; the turn goes on
 * (undefined) once its step has no call left waiting. Otherwise the run ends here with the
 * step's message: after a user's "no", while a sibling call still waits for its own answer, or
 * when nothing was waiting any more.
 */
export async function finishWaitingCalls(
  context: LoopContext,
  sessionID: string,
  run: ResumingRun,
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

/**
 * For a bare loop() (`holdForAnswers`): the latest message when it is a step whose call still
 * waits for a stored request, so the run ends with it rather than dropping the request. A
 * request can outlive its call: one answered here whose removal failed lets the call go on, and
 * stays stored. Such a request, or a newer message, holds nothing: the run moves past it.
 */
export async function heldForAnswers(
  context: LoopContext,
  sessionID: string,
): Promise<WithParts | undefined> {
  const waiting = await context.deps.asks.storedCalls(sessionID)
  if (waiting.size === 0) return undefined
  const [latest] = await context.deps.storage.listMessages(sessionID, { limit: 1 })
  const waits =
    latest?.info.role === "assistant" &&
    latest.parts.some(
      (part) =>
        part.type === "tool" &&
        waiting.has(part.callID) &&
        (part.state.status === "running" || part.state.status === "pending"),
    )
  return waits ? latest : undefined
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
 * Finishes a tool call that a stopped process left running while it waited for a permission
 * reply or an answer, as the processor would have: with the decision, the tool runs (or is
 * refused), its part is completed, and its assistant message is closed so the loop can take
 * the next step. Returns whether the turn is blocked (a user's "no"), or undefined when the
 * call is no longer waiting (it was repaired or answered meanwhile).
 */
export async function resumeToolCall(
  deps: Pick<
    LoopDeps,
    "storage" | "session" | "permission" | "tools" | "hooks" | "rejection" | "onToolError"
  >,
  input: ToolCallRef & {
    decision: StoredDecision
    agent: AgentInfo
    ruleset: Ruleset
    abort: AbortSignal
    /** Calls still waiting for their own answer, asked when the message is closed. */
    waiting: () => Promise<Set<string>>
  },
): Promise<{ blocked: boolean } | undefined> {
  const message = await deps.storage.getMessage(input.sessionID, input.messageID)
  const part = message?.parts.find(
    (candidate): candidate is ToolPart => candidate.type === "tool" && candidate.callID === input.callID,
  )
  if (message?.info.role !== "assistant" || part?.state.status !== "running") return undefined
  const start = part.state.time.start
  const args = part.state.input
  let blocked = false
  let finished: ToolPart
  try {
    const { attachments, ...result } = await outcome(
      deps,
      { ...input, directory: message.info.path.cwd },
      part,
    )
    const files = attachments?.map((file) => ({
      ...file,
      id: deps.session.newPartID(input.messageID),
      sessionID: input.sessionID,
      messageID: input.messageID,
      type: "file" as const,
    }))
    finished = {
      ...part,
      state: {
        status: "completed",
        input: args,
        ...result,
        ...(files ? { attachments: files } : {}),
        time: { start, end: Date.now() },
      },
    }
  } catch (error) {
    blocked = stopsTurn(error, input.agent.rejection ?? deps.rejection)
    const by = refusedBy(error)
    finished = {
      ...part,
      state: {
        status: "error",
        input: args,
        error: errorMessage(error),
        ...(by ? { refusedBy: by } : {}),
        time: { start, end: Date.now() },
      },
    }
  }
  const current = (await deps.storage.getMessage(input.sessionID, input.messageID)) ?? message
  await closeMessage(deps, current.info as Assistant, current.parts, finished, await input.waiting())
  return { blocked }
}

/** A resumed call: where it was, the answer it waited for, and the session's directory. */
type Resumed = ToolCallRef & {
  decision: StoredDecision
  agent: AgentInfo
  ruleset: Ruleset
  abort: AbortSignal
  directory: string
}

async function outcome(
  deps: Pick<LoopDeps, "session" | "permission" | "tools" | "hooks" | "onToolError">,
  input: Resumed,
  part: ToolPart,
): Promise<Result> {
  const { decision } = input
  const args = part.state.input
  if (decision.type === "question") {
    if (!decision.answers) throw QuestionRejectedError.byUser()
    const questions = (args as { questions?: QuestionInfo[] }).questions ?? []
    return answeredResult(questions, decision.answers)
  }
  if (decision.reply === "reject")
    throw decision.message ? CorrectedError.withFeedback(decision.message) : PermissionRejectedError.byUser()
  const tool = deps.tools.get(part.tool)
  if (!tool) throw new Error(`Unknown tool: ${part.tool}`)
  return runTool(tool, args, resumedContext(deps, input, part), {
    error: deps.onToolError,
    before: async (info, parsed, context) => {
      const output = { args: parsed }
      const about = { sessionID: input.sessionID, tool: info.id, callID: input.callID, abort: context.abort }
      await abortable(deps.hooks["tool.before"]?.(about, output), context.abort)
      return output.args
    },
    after: async (info, result, context) => {
      const about = { sessionID: input.sessionID, tool: info.id, callID: input.callID, abort: context.abort }
      await abortable(deps.hooks["tool.after"]?.(about, result), context.abort)
      return result
    },
  })
}

/** The call's context again; its first ask for the replied permission is the reply itself. */
function resumedContext(
  deps: Pick<LoopDeps, "session" | "permission">,
  input: Resumed,
  part: ToolPart,
): Context {
  let replied = false
  const { decision } = input
  return {
    sessionID: input.sessionID,
    messageID: input.messageID,
    callID: input.callID,
    agent: input.agent.name,
    abort: input.abort,
    directory: input.directory,
    evaluate: evaluateUnder(input.ruleset),
    async metadata(update) {
      if (part.state.status !== "running") return
      part.state = { ...part.state, ...update }
      await deps.session.updatePart(copyPlain(part))
    },
    async ask(request) {
      // As the processor's ask: file paths resolved first, each resulting request asked in turn.
      const asks = request.paths === true ? asksForPaths(request, input.directory) : [request]
      for (const ask of asks) await askOne(ask)
    },
  }

  async function askOne(request: Parameters<Context["ask"]>[0]) {
    const answered =
      decision.type === "permission" &&
      request.permission === decision.permission &&
      request.patterns.every((pattern) => decision.patterns.includes(pattern))
    if (answered && !replied) {
      replied = true
      return
    }
    await deps.permission.ask({
      sessionID: input.sessionID,
      permission: request.permission,
      patterns: request.patterns,
      always: request.always ?? [],
      metadata: request.metadata ?? {},
      tool: { messageID: input.messageID, callID: input.callID },
      ruleset: input.ruleset,
      signal: input.abort,
    })
  }
}

/**
 * The resumed call's part, stored with its message in one write. The message is closed as its
 * step would have closed it once no other call of it waits for an answer; until then the
 * waiting calls stay running and the message open.
 */
async function closeMessage(
  deps: Pick<LoopDeps, "storage" | "session">,
  info: Assistant,
  parts: Part[],
  finished: ToolPart,
  waiting: ReadonlySet<string>,
): Promise<void> {
  const now = Date.now()
  const open = parts.some(
    (part) => part.type === "tool" && part.id !== finished.id && waiting.has(part.callID),
  )
  const closed = parts.map((part): Part => {
    if (part.id === finished.id) return finished
    if (open) return part
    if (part.type === "tool") return interrupted(part, now, STOPPED_TOOL)
    if ((part.type === "text" || part.type === "reasoning") && part.time?.end === undefined)
      return { ...part, time: { start: part.time?.start ?? now, end: now } }
    return part
  })
  const message: Assistant = open
    ? info
    : { ...info, finish: info.finish ?? "tool-calls", time: { ...info.time, completed: now } }
  await deps.session.saveMessage({ info: message, parts: closed })
}
