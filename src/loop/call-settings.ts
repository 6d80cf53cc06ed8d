import type { Info as AgentInfo } from "../agent/info.js"
import { type Environment, systemPrompt } from "../agent/system.js"
import type { User } from "../message/info.js"
import type { StreamInput } from "../processor/stream-input.js"
import type { Model } from "../provider/provider.js"
import type { Info as SessionInfo } from "../schema/session.js"
import { abortable } from "../util/abortable.js"
import type { LoopDeps } from "./loop-deps.js"
import type { SystemPrompts } from "./system-prompts.js"

type Settings = Pick<StreamInput, "temperature" | "topP" | "providerOptions"> & { system: string }

/**
 * The system prompt and sampling settings of one model call, after the `chat.system` and
 * `chat.params` hooks. With `prompts`, a prompt no hook changes is the one kept there.
 */
export async function callSettings(
  deps: Pick<LoopDeps, "git" | "instructions" | "hooks" | "environment">,
  input: { session: SessionInfo; agent: AgentInfo; model: Model; user?: User; abort: AbortSignal },
  prompts?: SystemPrompts,
): Promise<Settings> {
  const { session, agent, user } = input
  const environment = environmentOf(deps, session)
  const prompt = {
    agent,
    ...(environment ? { environment } : {}),
    instructions: deps.instructions,
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
