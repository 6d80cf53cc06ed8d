import { z } from "zod"
import { InvalidInputError, parseInput } from "../error/invalid-input.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import { AbortedError } from "../message/errors.js"
import type { User, WithParts } from "../message/info.js"
import { ModelRef, type Part } from "../message/part.js"
import { PromptInput, type PromptInput as PromptInputType, type PromptPart } from "../schema/prompt.js"
import type { LoopResult, TurnResult } from "../schema/turn-result.js"
import { isDefaultTitle } from "../session/title.js"
import { abortable } from "../util/abortable.js"
import type { LoopContext } from "./context.js"
import type { IntakeWaits } from "./intake-waits.js"
import { sessionModel } from "./last-model.js"
import type { LoopDeps } from "./loop-deps.js"
import { assertNewMessageID, assertPromptable, assertStartable } from "./prompt-checks.js"
import type { Run, RunRegistry } from "./run.js"
import { formatSchema } from "./structured-output.js"
import { promptTurn, turnResult } from "./turn-result.js"

const CompactInput = z.strictObject({ sessionID: z.string(), model: ModelRef.optional() })
export type CompactInput = z.input<typeof CompactInput>

/** What the intake works with: the loop's context, its runs, titles and waits before a message is stored. */
type Intake = {
  context: LoopContext
  runs: RunRegistry
  titles: { start(sessionID: string, message: WithParts): void }
  waits: IntakeWaits
}

/** A prompt's fields, parsed, with its signal. */
type Parsed = z.output<typeof PromptInput>

/**
 * Where work enters the loop: `prompt` stores the user message and runs (or joins) the
 * session's run; `loop` runs it without a new message; `compact` runs a compaction once the
 * session is idle. `waits`: a prompt's wait before its message is stored ends on cancel or close.
 */
export function createIntake(
  context: LoopContext,
  runs: RunRegistry,
  titles: Intake["titles"],
  waits: IntakeWaits,
) {
  const intake: Intake = { context, runs, titles, waits }
  return {
    prompt: (input: PromptInputType, options?: { child?: boolean }) => prompt(intake, input, options),
    loop: (sessionID: string) => loop(intake, sessionID),
    compact: (input: CompactInput) => compact(intake, input),
  }
}

/**
 * `input.signal`: aborting it cancels the run once every caller waiting on the run has
 * aborted (a prompt without a signal, a `loop` or a `compact` never does); an already aborted
 * signal stores nothing and rejects with its reason. `options.child`: the task tool prompting
 * a child session, whose agent is a sub-agent.
 */
async function prompt(
  intake: Intake,
  input: PromptInputType,
  options: { child?: boolean } = {},
): Promise<TurnResult> {
  const { deps } = intake.context
  deps.assertOpen()
  const { signal, ...fields } = (input ?? {}) as PromptInputType
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new InvalidInputError({
      message: "Invalid session.prompt input: signal: expected an AbortSignal",
      issues: [{ path: "signal", message: "expected an AbortSignal" }],
    })
  signal?.throwIfAborted()
  const parsed = parseInput("session.prompt input", PromptInput, fields)
  const { session, agent, message } = await userMessage(intake, parsed, options)
  await beforeStore(intake, session.id, agent.name, message, signal)
  await deps.session.saveMessage(message)
  await deps.session.touch(session.id)
  if (!session.parentID && isDefaultTitle(session.title)) intake.titles.start(session.id, message)
  if (parsed.noReply)
    return promptTurn(await turnResult(deps.storage, { answer: message, messages: [message] }), message)

  // Another process may be running the session: its run takes the message in.
  const id = message.info.id
  await deps.coordinator?.publish({ type: "prompt", sessionID: session.id, messageID: id })
  const run = await joinRun(intake, session.id, message, signal)
  return promptTurn(await result(intake, run, session.id, await wait(run, signal), id), message)
}

/** The prompt's user message, checked against its session, agent and model; not stored yet. */
async function userMessage(intake: Intake, parsed: Parsed, options: { child?: boolean }) {
  const { context } = intake
  const { deps } = context
  const session = await deps.session.get(parsed.sessionID)
  const agentPart = parsed.parts.findLast((part) => part.type === "agent")
  const agent = context.agentOf(parsed.agent ?? agentPart?.name ?? session.agent ?? deps.defaultAgent)
  if (options.child) assertStartable(agent)
  else assertPromptable(agent)
  for (const part of parsed.parts) if (part.type === "subtask") assertStartable(context.agentOf(part.agent))
  if (parsed.format?.type === "json_schema") formatSchema(parsed.format)
  // OpenCode's order: the prompt's model, the agent's, the one the session last used (or was
  // created with), the default.
  const model = parsed.model ?? agent.model ?? (await sessionModel(deps.storage, context.provider(), session))
  context.provider().getModel(model)

  if (parsed.messageID !== undefined)
    await assertNewMessageID(deps.storage, session.id, parsed.messageID, deps.messageOwners?.ownerOf)
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
    ...(parsed.format?.type === "json_schema" ? { format: parsed.format } : {}),
  }
  const parts = parsed.parts.map((part) => toPart(deps, part, session.id, id))
  const message: WithParts = { info, parts }
  return { session, agent, message }
}

/**
 * Before the message is stored: the `chat.message` hook, and the session's revert made final.
 * A cancel (or the caller's signal) meanwhile stores nothing.
 */
async function beforeStore(
  intake: Intake,
  sessionID: string,
  agent: string,
  message: WithParts,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { deps } = intake.context
  const intakeWait = intake.waits.enter(sessionID, signal)
  try {
    const hookInput = { sessionID, agent, abort: intakeWait.signal }
    await abortable(deps.hooks["chat.message"]?.(hookInput, message), intakeWait.signal)
    // A running session has no revert to make final: revert refuses busy sessions.
    if (!intake.runs.get(sessionID)) await deps.files.cleanup(sessionID)
    // A cancel while a synchronous hook or the cleanup ran stores nothing either.
    intakeWait.signal.throwIfAborted()
  } finally {
    intakeWait.end()
  }
}

/**
 * The run that answers a stored message: the session's run, or a new one. A run that already
 * took in its last prompt (it is computing its diff, say) would never read the message: the
 * message waits for it to end, then starts the next run. A cancel (or the caller's signal)
 * meanwhile cancels that run before its first step, as it would have cancelled the run joined.
 */
async function joinRun(
  intake: Intake,
  sessionID: string,
  message: WithParts,
  signal?: AbortSignal,
): Promise<Run> {
  const { runs, waits } = intake
  let cancelled = false
  for (;;) {
    const starts = runs.get(sessionID) === undefined
    const run = runs.join(sessionID, message)
    if (run) {
      if (cancelled && starts) run.abort.abort()
      return run
    }
    const queued = waits.enter(sessionID, signal)
    try {
      await runs.get(sessionID)?.done.catch(() => undefined)
    } finally {
      queued.end()
    }
    if (RuntimeClosedError.isInstance(queued.signal.reason)) throw queued.signal.reason
    cancelled ||= queued.signal.aborted
  }
}

function toPart(deps: LoopDeps, part: PromptPart, sessionID: string, messageID: string): Part {
  const base = { id: deps.session.newPartID(messageID), sessionID, messageID }
  if (part.type === "text") return { ...base, ...part }
  return { ...base, ...part } as Part
}

/**
 * Runs (or joins) the session's run. A loop that waits for a user's shell command to end and is
 * cancelled meanwhile starts no run: it resolves with the session's latest message (the
 * command's), as OpenCode resolves a loop queued behind a command.
 */
async function loop(intake: Intake, sessionID: string): Promise<LoopResult> {
  const { runs, waits } = intake
  const { deps } = intake.context
  deps.assertOpen()
  const session = await deps.session.get(sessionID)
  if (!runs.get(session.id)) {
    const queued = waits.enter(session.id)
    try {
      await deps.files.cleanup(session.id)
    } finally {
      queued.end()
    }
    if (queued.signal.aborted) return cancelledBeforeRun(deps, session.id, queued.signal.reason)
    if (!runs.get(session.id)) runs.start(session.id, { holdForAnswers: true, continueCut: true })
  }
  const run = runs.get(session.id)!
  return result(intake, run, session.id, await wait(run))
}

/** A loop cancelled before its run started: the latest message, or the reason when there is none. */
async function cancelledBeforeRun(deps: LoopDeps, sessionID: string, reason: unknown): Promise<LoopResult> {
  if (RuntimeClosedError.isInstance(reason)) throw reason
  const messages = await deps.storage.listMessages(sessionID)
  const latest = messages.at(-1)
  if (!latest) throw reason
  return turnResult(deps.storage, { answer: latest, messages })
}

async function compact(intake: Intake, input: CompactInput): Promise<LoopResult> {
  const { context, runs, waits } = intake
  const { deps } = context
  deps.assertOpen()
  const parsed = parseInput("session.compact input", CompactInput, input)
  const session = await deps.session.get(parsed.sessionID)
  if (parsed.model) context.provider().getModel(parsed.model)
  // A compaction in the middle of a turn would end it: wait until the session is idle. A
  // cancel meanwhile cancels the compaction too: it calls no model.
  const queued = waits.enter(session.id)
  try {
    for (let running = runs.get(session.id); running; running = runs.get(session.id))
      await running.done.catch(() => undefined)
    await deps.files.cleanup(session.id)
  } finally {
    queued.end()
  }
  if (RuntimeClosedError.isInstance(queued.signal.reason)) throw queued.signal.reason
  if (queued.signal.aborted)
    throw new AbortedError({ message: "The compaction was cancelled before it started" })
  if (!runs.get(session.id)) runs.start(session.id, { compact: { model: parsed.model } })
  const run = runs.get(session.id)!
  return result(intake, run, session.id, await wait(run))
}

/**
 * The caller's turn result, read from the messages the run kept (its history), or from
 * storage when the run ended before loading them (it only finished calls a stopped process
 * left waiting). `userID`: a prompt's own message, whose steps are the ones after it.
 */
async function result(
  intake: Intake,
  run: Run,
  sessionID: string,
  answer: WithParts,
  userID?: string,
): Promise<LoopResult> {
  const { context } = intake
  const messages = run.history ?? (await context.deps.storage.listMessages(sessionID))
  const user = (
    userID
      ? messages.find((message) => message.info.id === userID)
      : messages.findLast((message) => message.info.role === "user")
  )?.info
  const agent = user?.role === "user" ? context.agentOf(user.agent) : undefined
  return turnResult(context.deps.storage, { answer, messages, userID, maxSteps: agent?.steps })
}

/**
 * A caller waits on the run: when every caller waiting has aborted its signal, the run is
 * cancelled as `cancel` does; the listener goes when the run ends.
 */
function wait(run: Run, signal?: AbortSignal): Promise<WithParts> {
  const { callers } = run
  callers.waiting++
  if (!signal) return run.done
  const leave = () => {
    callers.aborted++
    if (callers.aborted >= callers.waiting) run.abort.abort()
  }
  if (signal.aborted) leave()
  else {
    signal.addEventListener("abort", leave, { once: true })
    void run.done.finally(() => signal.removeEventListener("abort", leave)).catch(() => undefined)
  }
  return run.done
}
