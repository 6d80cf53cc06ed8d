import type { AgentInfo } from "../agent/info.js"
import type { Bus } from "../bus/bus.js"
import type { CompactionConfig } from "../compaction/config.js"
import type { Coordinator } from "../coordination/port.js"
import type { PermissionService } from "../permission/service.js"
import type { Hooks } from "../processor/hooks.js"
import type { ModelStream } from "../processor/model-stream.js"
import type { Provider } from "../provider/provider.js"
import type { Ruleset } from "../schema/permission.js"
import type { Status } from "../schema/session.js"
import type { MessageOwners } from "../session/message-owners.js"
import type { SessionService } from "../session/service.js"
import type { Snapshot } from "../snapshot/port.js"
import type { Storage } from "../storage/port.js"
import type { ToolRegistry } from "../tool/registry.js"
import type { Context, Result } from "../tool/tool.js"
import type { ToolErrorHandler } from "../tool/tool-error.js"
import type { RetryOptions } from "./retry.js"
import type { TurnInstructions } from "./turn-instructions.js"

/** Each session's loop status, in memory (run.ts `createStatusRegistry`): a session without an entry is idle. */
export type StatusRegistry = {
  get(sessionID: string): Status
  /** The sessions that are not idle, with their status. */
  active(): Record<string, Status>
  /** Records the status and publishes it (`session.status`, and `session.idle` when idle). */
  set(sessionID: string, status: Status): void
}

/** What the prompt loop needs from the runtime. */
export type LoopDeps = {
  storage: Storage
  bus: Bus
  session: SessionService
  permission: Pick<PermissionService, "ask">
  provider: Provider | undefined
  agents: Record<string, AgentInfo>
  defaultAgent: string
  tools: ToolRegistry
  snapshot: Snapshot | undefined
  /** Runs a task with a sub-agent for a subtask part (the built-in task tool's work, without its ask). */
  runTask(
    args: { description: string; prompt: string; subagent_type: string },
    context: Context,
  ): Promise<Result>
  /** File history around runs: a revert made final before new work, each turn's diff after it. */
  files: {
    cleanup(sessionID: string): Promise<void>
    summarize(sessionID: string, userID?: string): Promise<void>
  }
  status: StatusRegistry
  retry: RetryOptions
  /** How every step calls the model: one per runtime, whose caches make later steps cheap. */
  modelStream: ModelStream
  /** See RuntimeOptions.streamIdleTimeoutMs; undefined: the processor's default. */
  streamIdleTimeoutMs: number | undefined
  /** Appended after every agent's own rules. */
  permissionRules: Ruleset
  /** RuntimeOptions.instructions, resolved once per turn. */
  instructions: TurnInstructions
  /** Whether the working directory is a git repository, for the system prompt; unknown when undefined. */
  git: boolean | undefined
  /** See RuntimeOptions.environment. */
  environment: "date" | "workspace" | "none"
  /** See RuntimeOptions.titles; undefined: only with a small model. */
  titles: boolean | undefined
  hooks: Hooks
  /** See RuntimeOptions.onToolError. */
  onToolError: ToolErrorHandler | undefined
  compaction: CompactionConfig
  /** See RuntimeOptions.rejection; an agent's own `rejection` wins. */
  rejection: "stop" | "continue"
  /** Requests that stopped processes left stored (permissions and questions together). */
  asks: {
    /** Tool calls of the session whose request is stored and unanswered: a reply can resume them. */
    storedCalls(sessionID: string): Promise<Set<string>>
    /** Answers "no" to what is stored for the session: a new run moves past it. */
    forgetStored(sessionID: string): Promise<void>
    /**
     * Acts on the answers recorded for the session's stored requests (given in one process for
     * another that stopped before acting on them): their calls join the resumes of the run that
     * calls it, which owns the session.
     */
    resumeRecorded(sessionID: string): Promise<void>
  }
  /** Which session recently stored messages belong to, for a prompt's own messageID. */
  messageOwners?: Pick<MessageOwners, "ownerOf"> | undefined
  /** Other processes on the same storage; undefined: this runtime is alone with it. */
  coordinator: Coordinator | undefined
  assertOpen(): void
}
