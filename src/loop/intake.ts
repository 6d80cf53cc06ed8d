import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import type { User, WithParts } from "../message/info.js"
import { ModelRef, type Part } from "../message/part.js"
import type { Model } from "../provider/provider.js"
import { isDefaultTitle } from "../session/title.js"
import { abortable } from "./abortable.js"
import type { LoopContext } from "./context.js"
import { assertNewMessageID, assertPromptable, assertStartable } from "./prompt-checks.js"
import { PromptInput, type PromptInput as PromptInputType, type PromptPart } from "./prompt-input.js"
import type { RunRegistry } from "./run-registry.js"

const CompactInput = z.strictObject({ sessionID: z.string(), model: ModelRef.optional() })
export type CompactInput = z.input<typeof CompactInput>

/**
 * Where work enters the loop: `prompt` stores the user message and runs (or joins) the
 * session's run; `loop` runs it without a new message; `compact` runs a compaction once the
 * session is idle. `closing` aborts when the runtime closes.
 */
export function createIntake(
  context: LoopContext,
  runs: RunRegistry,
  titles: { start(sessionID: string, message: WithParts): void },
  closing: AbortSignal,
) {
  const { deps } = context

  /**
   * `options.child`: the task tool prompting a child session, whose agent is a sub-agent and
   * whose run the caller's `signal` cancels.
   */
  async function prompt(
    input: PromptInputType,
    options: { child?: { signal: AbortSignal } } = {},
  ): Promise<WithParts> {
    deps.assertOpen()
    const parsed = parseInput("session.prompt input", PromptInput, input)
    const session = await deps.session.get(parsed.sessionID)
    const agentPart = parsed.parts.findLast((part) => part.type === "agent")
    const agent = context.agentOf(parsed.agent ?? agentPart?.name ?? deps.defaultAgent)
    if (options.child) assertStartable(agent)
    else assertPromptable(agent)
    for (const part of parsed.parts) if (part.type === "subtask") assertStartable(context.agentOf(part.agent))
    const model = parsed.model ?? agent.model ?? refOf(context.provider().defaultModel())
    context.provider().getModel(model)

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
    const hookInput = { sessionID: session.id, agent: agent.name, abort: closing }
    await abortable(deps.hooks["chat.message"]?.(hookInput, message), closing)
    // A running session has no revert to make final: revert refuses busy sessions.
    if (!runs.get(session.id)) await deps.files.cleanup(session.id)
    await deps.session.saveMessage(message)
    await deps.session.touch(session.id)
    if (!session.parentID && isDefaultTitle(session.title)) titles.start(session.id, message)
    if (parsed.noReply) return message

    const running = runs.get(session.id)
    if (running) {
      running.incoming.push(message)
      return running.done
    }
    const done = runs.start(session.id)
    if (options.child) cancelWith(options.child.signal, runs.get(session.id)!.abort, done)
    return done
  }

  function toPart(part: PromptPart, sessionID: string, messageID: string): Part {
    const base = { id: deps.session.newPartID(messageID), sessionID, messageID }
    if (part.type === "text") return { ...base, ...part }
    return { ...base, ...part } as Part
  }

  async function loop(sessionID: string): Promise<WithParts> {
    deps.assertOpen()
    const session = await deps.session.get(sessionID)
    const running = runs.get(session.id)
    if (running) return running.done
    await deps.files.cleanup(session.id)
    return runs.get(session.id)?.done ?? runs.start(session.id, { holdForAnswers: true })
  }

  async function compact(input: CompactInput): Promise<WithParts> {
    deps.assertOpen()
    const parsed = parseInput("session.compact input", CompactInput, input)
    const session = await deps.session.get(parsed.sessionID)
    if (parsed.model) context.provider().getModel(parsed.model)
    // A compaction in the middle of a turn would end it: wait until the session is idle.
    for (let running = runs.get(session.id); running; running = runs.get(session.id))
      await running.done.catch(() => undefined)
    await deps.files.cleanup(session.id)
    return runs.get(session.id)?.done ?? runs.start(session.id, { compact: { model: parsed.model } })
  }

  return { prompt, loop, compact }
}

/** The caller's abort cancels the run as `cancel` does; the listener goes when the run ends. */
function cancelWith(signal: AbortSignal, run: AbortController, done: Promise<unknown>): void {
  if (signal.aborted) {
    run.abort()
    return
  }
  const cancel = () => run.abort()
  signal.addEventListener("abort", cancel, { once: true })
  void done.finally(() => signal.removeEventListener("abort", cancel)).catch(() => undefined)
}

function refOf(model: Model) {
  return { providerID: model.info.providerID, modelID: model.info.id }
}
