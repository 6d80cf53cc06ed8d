import { z } from "zod"
import type { AgentInfo } from "../agent/info.js"
import { getAgent } from "../agent/resolve.js"
import { NamedError } from "../error/named-error.js"
import { sessionRules } from "../permission/session-rules.js"
import type { Provider } from "../provider/provider.js"
import type { Ruleset } from "../schema/permission.js"
import { merge } from "../schema/permission-rules.js"
import type { SessionInfo } from "../schema/session.js"
import { createLru, type Lru } from "../util/lru.js"
import { createSystemPrompts, type SystemPrompts } from "./call-settings.js"
import { type CompactionTasks, createCompactionTasks } from "./compaction-task.js"
import type { LoopDeps } from "./loop-deps.js"
import type { CallModel } from "./model-call.js"
import { createPromptCache, type PromptCache } from "./prompt-cache.js"

const MessageData = z.object({ message: z.string() })

/** A prompt reached a runtime created without a provider. */
export class MissingProviderError extends NamedError<"MissingProviderError", z.infer<typeof MessageData>> {
  static override readonly errorName = "MissingProviderError"
  static readonly Schema = z.object({ name: z.literal("MissingProviderError"), data: MessageData })
}

/** The loop was asked to run on a session that has no user message to answer. */
export class NoUserMessageError extends NamedError<"NoUserMessageError", z.infer<typeof MessageData>> {
  static override readonly errorName = "NoUserMessageError"
  static readonly Schema = z.object({ name: z.literal("NoUserMessageError"), data: MessageData })
}

/** What every part of one runtime's loop shares: its dependencies, the provider and agents, caches. */
export type LoopContext = {
  deps: LoopDeps
  compaction: CompactionTasks
  /** The history as model messages, converted once per message. */
  modelMessages: PromptCache
  /** The system prompt steps send when no hook changes it, built again only when its inputs change. */
  systemPrompts: SystemPrompts
  /**
   * Sessions whose leftovers from a stopped process were closed (or that this loop ran): the
   * most recent ones only, so that a long-lived runtime does not keep every session it saw. A
   * session that drops out is checked again on its next read, which finds nothing left to close.
   */
  repaired: Lru<string, true>
  /** Sessions whose run storage failed under, with why, until their leftovers are closed. */
  storageFailures: Map<string, string>
  provider(): Provider
  agentOf(name: string): AgentInfo
  /** The rules a step of this agent runs under in this session: agent, runtime, session and its ancestors. */
  rulesFor(session: SessionInfo, agent: AgentInfo): Promise<Ruleset>
}

/** How many sessions `repaired` keeps. */
const REPAIRED_LIMIT = 10_000

/**
 * `call`: one model call with its retries (steps.ts `callModel`), handed in for the compaction
 * tasks, which steps.ts runs.
 */
export function createLoopContext(
  deps: LoopDeps,
  call: CallModel,
  limits: { repaired?: number } = {},
): LoopContext {
  const provider = () => {
    if (!deps.provider)
      throw new MissingProviderError({ message: "runtime.session.prompt needs createRuntime({ provider })" })
    return deps.provider
  }
  return {
    deps,
    compaction: createCompactionTasks(deps, call, provider),
    modelMessages: createPromptCache(),
    systemPrompts: createSystemPrompts(),
    repaired: createLru(limits.repaired ?? REPAIRED_LIMIT),
    storageFailures: new Map(),
    provider,
    agentOf: (name) => getAgent(deps.agents, name),
    rulesFor: async (session, agent) =>
      merge(agent.permission, deps.permissionRules, await sessionRules(session, deps.storage)),
  }
}
