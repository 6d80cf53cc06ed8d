import type { AgentInfo } from "../agent/info.js"
import { type Environment, formatDate, type SystemPromptInput, systemPrompt } from "../agent/system.js"
import type { User } from "../message/info.js"
import type { StreamInput } from "../processor/stream-input.js"
import type { Model } from "../provider/provider.js"
import type { SessionInfo } from "../schema/session.js"
import { abortable } from "../util/abortable.js"
import type { LoopDeps } from "./loop-deps.js"

type Settings = Pick<StreamInput, "temperature" | "topP" | "providerOptions"> & { system: string }

/**
 * The system prompt and sampling settings of one model call, after the `chat.system` and
 * `chat.params` hooks. With `prompts`, a prompt no hook changes is the one kept there.
 */
export async function callSettings(
  deps: Pick<LoopDeps, "git" | "instructions" | "hooks" | "environment">,
  input: {
    session: SessionInfo
    agent: AgentInfo
    model: Model
    /** The user message being answered: its `system`, and the turn the instructions are kept for. */
    user: User
    /** Leaves out the user message's `system` (a summary's request). */
    withoutUserSystem?: boolean
    abort: AbortSignal
  },
  prompts?: SystemPrompts,
): Promise<Settings> {
  const { session, agent, abort } = input
  const user = input.withoutUserSystem ? undefined : input.user
  const environment = environmentOf(deps, session)
  const turn = {
    sessionID: session.id,
    userID: input.user.id,
    directory: session.directory,
    agent: agent.name,
    abort,
  }
  const prompt = {
    agent,
    ...(environment ? { environment } : {}),
    instructions: await deps.instructions(turn),
    ...(user?.system === undefined ? {} : { user: user.system }),
  }
  const about = { sessionID: session.id, agent, model: input.model.info, abort: input.abort }
  const hook = deps.hooks["chat.system"]
  const kept = hook || !prompts ? undefined : prompts(prompt)
  const system = { system: kept === undefined ? systemPrompt(prompt) : [] }
  await abortable(hook?.(about, system), input.abort)
  const params: Omit<Settings, "system"> = {
    ...(agent.temperature === undefined ? {} : { temperature: agent.temperature }),
    ...(agent.topP === undefined ? {} : { topP: agent.topP }),
  }
  await abortable(deps.hooks["chat.params"]?.(about, params), input.abort)
  return { system: kept ?? system.system.join("\n\n"), ...params }
}

/** What the runtime's `environment` option lets the model know about where it runs. */
function environmentOf(
  deps: Pick<LoopDeps, "git" | "environment">,
  session: SessionInfo,
): Environment | undefined {
  if (deps.environment === "none") return undefined
  if (deps.environment === "date") return { date: new Date() }
  return {
    directory: session.directory,
    ...(deps.git === undefined ? {} : { git: deps.git }),
    platform: process.platform,
    date: new Date(),
  }
}

/**
 * The joined system prompt of the steps of a runtime, kept while what it is built from stays the
 * same. `systemPrompt` reads only the agent's prompt, the environment's fields (the date to the
 * day), the instructions and the user's system text, so equal values give the same text: the
 * steps of a run build it once, and again when the day changes. The caller builds it anew
 * whenever a `chat.system` hook may change the blocks. One prompt is kept: the steps of most
 * runs share it.
 */
export function createSystemPrompts() {
  let last: { key: unknown[]; system: string } | undefined
  return (input: SystemPromptInput): string => {
    const key = keyOf(input)
    if (last && same(key, last.key)) return last.system
    const system = systemPrompt(input).join("\n\n")
    last = { key, system }
    return system
  }
}

export type SystemPrompts = ReturnType<typeof createSystemPrompts>

function keyOf(input: SystemPromptInput): unknown[] {
  const { environment } = input
  return [
    input.agent.prompt,
    environment === undefined,
    environment?.directory,
    environment?.git,
    environment?.platform,
    environment?.date === undefined ? undefined : formatDate(environment.date),
    input.user,
    input.instructions === undefined,
    ...(input.instructions ?? []),
  ]
}

function same(key: readonly unknown[], kept: readonly unknown[]): boolean {
  return key.length === kept.length && key.every((value, index) => value === kept[index])
}
