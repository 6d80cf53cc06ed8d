import { z } from "zod"
import { InvalidInputError, parseInput } from "../error/invalid-input.js"
import type { User, WithParts } from "../message/info.js"
import { ModelRef, type Part } from "../message/part.js"
import { isDefaultTitle } from "../session/title.js"
import { abortable } from "./abortable.js"
import type { LoopContext } from "./context.js"
import type { IntakeWaits } from "./intake-waits.js"
import { sessionModel } from "./last-model.js"
import { assertNewMessageID, assertPromptable, assertStartable } from "./prompt-checks.js"
import { PromptInput, type PromptInput as PromptInputType, type PromptPart } from "./prompt-input.js"
import type { RunRegistry } from "./run-registry.js"
import type { Run } from "./run-state.js"
import { formatSchema } from "./structured-output.js"
import { type TurnResult, turnResult } from "./turn-result.js"

const CompactInput = z.strictObject({ sessionID: z.string(), model: ModelRef.optional() })
export type CompactInput = z.input<typeof CompactInput>

/**
 * Where work enters the loop: `prompt` stores the user message and runs (or joins) the
 * session's run; `loop` runs it without a new message; `compact` runs a compaction once the
 * session is idle. `waits`: a prompt's wait before its message is stored ends on cancel or close.
 */
export function createIntake(
  context: LoopContext,
  runs: RunRegistry,
  titles: { start(sessionID: string, message: WithParts): void },
  waits: IntakeWaits,
) {
  const { deps } = context

  /**
   * `input.signal`: aborting it cancels the run once every caller waiting on the run has
   * aborted (a prompt without a signal, a `loop` or a `compact` never does); an already aborted
   * signal stores nothing and rejects with its reason. `options.child`: the task tool prompting
   * a child session, whose agent is a sub-agent.
   */
  async function prompt(input: PromptInputType, options: { child?: boolean } = {}): Promise<TurnResult> {
    deps.assertOpen()
    const { signal, ...fields } = (input ?? {}) as PromptInputType
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new InvalidInputError({
        message: "Invalid session.prompt input: signal: expected an AbortSignal",
        issues: [{ path: "signal", message: "expected an AbortSignal" }],
      })
    signal?.throwIfAborted()
    const parsed = parseInput("session.prompt input", PromptInput, fields)
    const session = await deps.session.get(parsed.sessionID)
    const agentPart = parsed.parts.findLast((part) => part.type === "agent")
    const agent = context.agentOf(parsed.agent ?? agentPart?.name ?? session.agent ?? deps.defaultAgent)
    if (options.child) assertStartable(agent)
    else assertPromptable(agent)
    for (const part of parsed.parts) if (part.type === "subtask") assertStartable(context.agentOf(part.agent))
    if (parsed.format?.type === "json_schema") formatSchema(parsed.format)
    // OpenCode's order: the prompt's model, the agent's, the one the session last used (or was
    // created with), the default.
    const model =
      parsed.model ?? agent.model ?? (await sessionModel(deps.storage, context.provider(), session))
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
    const message: WithParts = { info, parts: parsed.parts.map((part) => toPart(part, session.id, id)) }
    const intakeWait = waits.enter(session.id, signal)
    try {
      const hookInput = { sessionID: session.id, agent: agent.name, abort: intakeWait.signal }
      await abortable(deps.hooks["chat.message"]?.(hookInput, message), intakeWait.signal)
      // A running session has no revert to make final: revert refuses busy sessions.
      if (!runs.get(session.id)) await deps.files.cleanup(session.id)
      // A cancel while a synchronous hook or the cleanup ran stores nothing either.
      intakeWait.signal.throwIfAborted()
    } finally {
      intakeWait.end()
    }
    await deps.session.saveMessage(message)
    await deps.session.touch(session.id)
    if (!session.parentID && isDefaultTitle(session.title)) titles.start(session.id, message)
    if (parsed.noReply) return turnResult(deps.storage, { answer: message, messages: [message] })

    // Another process may be running the session: its run takes the message in.
    await deps.coordinator?.publish({ type: "prompt", sessionID: session.id, messageID: id })
    const running = runs.get(session.id)
    if (running) running.incoming.push(message)
    else runs.start(session.id)
    const run = runs.get(session.id)!
    return result(run, session.id, await wait(run, signal), id)
  }

  function toPart(part: PromptPart, sessionID: string, messageID: string): Part {
    const base = { id: deps.session.newPartID(messageID), sessionID, messageID }
    if (part.type === "text") return { ...base, ...part }
    return { ...base, ...part } as Part
  }

  async function loop(sessionID: string): Promise<TurnResult> {
    deps.assertOpen()
    const session = await deps.session.get(sessionID)
    if (!runs.get(session.id)) {
      await deps.files.cleanup(session.id)
      if (!runs.get(session.id)) runs.start(session.id, { holdForAnswers: true, continueCut: true })
    }
    const run = runs.get(session.id)!
    return result(run, session.id, await wait(run))
  }

  async function compact(input: CompactInput): Promise<TurnResult> {
    deps.assertOpen()
    const parsed = parseInput("session.compact input", CompactInput, input)
    const session = await deps.session.get(parsed.sessionID)
    if (parsed.model) context.provider().getModel(parsed.model)
    // A compaction in the middle of a turn would end it: wait until the session is idle.
    for (let running = runs.get(session.id); running; running = runs.get(session.id))
      await running.done.catch(() => undefined)
    await deps.files.cleanup(session.id)
    if (!runs.get(session.id)) runs.start(session.id, { compact: { model: parsed.model } })
    const run = runs.get(session.id)!
    return result(run, session.id, await wait(run))
  }

  /**
   * The caller's turn result, read from the messages the run kept (its history), or from
   * storage when the run ended before loading them (it only finished calls a stopped process
   * left waiting). `userID`: a prompt's own message, whose steps are the ones after it.
   */
  async function result(
    run: Run,
    sessionID: string,
    answer: WithParts,
    userID?: string,
  ): Promise<TurnResult> {
    const messages = run.history ?? (await deps.storage.listMessages(sessionID))
    const user = (
      userID
        ? messages.find((message) => message.info.id === userID)
        : messages.findLast((message) => message.info.role === "user")
    )?.info
    const agent = user?.role === "user" ? context.agentOf(user.agent) : undefined
    return turnResult(deps.storage, { answer, messages, userID, maxSteps: agent?.steps })
  }

  return { prompt, loop, compact }
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
