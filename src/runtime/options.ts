import { z } from "zod"
import type { AgentInfo } from "../agent/info.js"
import type { InstructionSource } from "../agent/instructions.js"
import type { CommandInfo } from "../command/info.js"
import { CompactionConfig, type CompactionConfigInput } from "../compaction/config.js"
import type { Coordinator } from "../coordination/port.js"
import { RetryOptions, type RetryOptionsInput } from "../loop/retry.js"
import type { ApprovalScope } from "../permission/approvals.js"
import type { PermissionHandler } from "../permission/service.js"
import type { Hooks } from "../processor/hooks.js"
import { ModelInput } from "../provider/from-options.js"
import type { Logger } from "../provider/logger.js"
import type { Provider } from "../provider/provider.js"
import type { QuestionHandler } from "../question/service.js"
import type { Event } from "../schema/events.js"
import { type Rule, Ruleset } from "../schema/permission.js"
import type { Snapshot } from "../snapshot/port.js"
import type { Storage } from "../storage/port.js"
import type { AttributeValue, TelemetrySettings, Tracer } from "../telemetry/index.js"
import type { AITool } from "../tool/from-ai.js"
import type { ToolInfo } from "../tool/tool.js"
import type { ToolErrorHandler } from "../tool/tool-error.js"
import { withOwnNames } from "../util/own-names.js"
import { TimeoutMs } from "../util/timeout.js"

/**
 * An agent as `createRuntime({ agents })` takes it: any of Agent.Info's fields, overriding a
 * built-in agent's or the defaults of a new one. Its rules may be a readonly array (`as const`).
 */
export type AgentOptions = Partial<Omit<AgentInfo, "permission">> & { permission?: readonly Rule[] }

/**
 * What `createRuntime` takes: the models, the storage, tools, agents, permission rules, handlers
 * for asks, and limits. Everything is optional; a malformed value throws `InvalidInputError` from
 * `createRuntime`. See docs/runtime.md.
 */
export type RuntimeOptions = {
  /**
   * The models sessions run on, with full control (createProvider). The prompt loop needs a
   * provider, `model` or `models`; sessions, storage and asks do not. Not with `model` / `models`.
   */
  provider?: Provider
  /**
   * The one model sessions run on: an AI SDK model (`anthropic("claude-sonnet-4-5")`), its IDs,
   * prices and window from the model catalogue, or `{ language, info }` to give or override them.
   * See docs/provider.md.
   */
  model?: ModelInput
  /** Several models, as `model`; the first is the default. Not with `model`. */
  models?: readonly ModelInput[]
  /** The model for titles (with `model` / `models`), as `model`. Default: none, so no titles unless `titles: true`. */
  smallModel?: ModelInput
  /**
   * Tools registered besides the built-ins; one with a built-in's id replaces it. An AI SDK
   * `ToolSet` (`{ weather: tool({...}) }`, an MCP client's `tools()`) is taken as
   * `Tool.fromAISet(set)`: each tool named by its key, asking its own permission.
   */
  tools?: readonly ToolInfo[] | Record<string, AITool>
  /** Overrides of the built-in agents, or new agents, by name. */
  agents?: Record<string, AgentOptions>
  /** The agent a prompt runs with when it names none. Default "build". */
  defaultAgent?: string
  /** Rules appended after every agent's own rules (a session's own rules come last). */
  permission?: readonly Rule[]
  /**
   * Records each step's file changes (patch parts), for session.diff and session.revert; see
   * GitSnapshot in agentloop-sdk/snapshot/git. Default: none.
   */
  snapshot?: Snapshot
  /**
   * Extra system prompt text, after the agent's prompt and the environment: one text, or several,
   * in order. An entry may be an `InstructionSource`, called once per turn (project files such as
   * `AGENTS.md`, skills; see docs/tools.md), whose strings take its place.
   */
  instructions?: string | readonly (string | InstructionSource)[]
  /** Slash commands by name, run with runtime.session.command (docs/commands.md). */
  commands?: Record<string, CommandInfo>
  /** Retries of failed model calls: attempts (default 8) and the longest wait (default 5 minutes). */
  retry?: RetryOptionsInput
  /**
   * How long a model stream may send nothing, while no tool runs, before the attempt fails as
   * retryable (and is retried). Default 5 minutes; at most 2^31-1 ms.
   */
  streamIdleTimeoutMs?: number
  /**
   * Summary compaction and pruning: `auto` (default true), `prune` (default false), `reserved`,
   * `tailTurns` (default 2), `preserveRecentTokens`, `protectedTools`. See docs/compaction.md.
   */
  compaction?: Omit<CompactionConfigInput, "protectedTools"> & { protectedTools?: readonly string[] }
  /** Whether the working directory is a git repository, for the system prompt (with `environment: "workspace"`). */
  git?: boolean
  /**
   * What the system prompt tells the model about where it runs: `"date"` (default) today's date
   * only; `"workspace"` the session's directory, whether it is a git repository, the platform and
   * the date (the coding preset's choice); `"none"` nothing.
   */
  environment?: "date" | "workspace" | "none"
  /**
   * Whether new top-level sessions get a title written by the model. Default: only when the
   * provider has a small model; `true` also uses the default model; `false` never.
   */
  titles?: boolean
  /** Plug-in points of the loop: `chat.message`, `chat.params`, `chat.system`, `tool.before`, `tool.after`, `text.complete`. */
  hooks?: Hooks
  /** Where sessions live. Default: a new MemoryStorage. */
  storage?: Storage
  /**
   * Other processes sharing the storage: one owner per session's loop, events, prompts, cancels
   * and answers across processes. Default: the storage's own (`PostgresStorage` has one), else
   * none; `false` runs alone even on shared storage.
   */
  coordinator?: Coordinator | false
  /** Working directory recorded on new sessions. Default: process.cwd(). */
  directory?: string
  /** Answers permission requests. Without it, answers come from runtime.permission.reply. */
  onPermission?: PermissionHandler
  /** Answers questions. Without it, answers come from runtime.question.reply. */
  onQuestion?: QuestionHandler
  /**
   * Whether the model gets the `question` tool, to ask the user. Default: only with `onQuestion`,
   * since otherwise no one may answer; a host whose users answer through runtime.question.reply
   * (a UI, the HTTP server's clients) turns it on.
   */
  question?: boolean
  /**
   * Whether the model gets the `task` tool, to start sub-agents. Default: when an agent given in
   * `agents` (the coding preset's `explore`, a host's own) has mode "subagent" or "all"; the
   * built-in `general` alone does not count. Agents whose rules deny `task` never see it.
   */
  task?: boolean
  /** Whether the model gets the to-do list tools, `todowrite` and `todoread`. Default false; the coding preset turns them on. */
  todos?: boolean
  /**
   * What a rejected permission or dismissed question does to the turn: "stop" (default, as in
   * OpenCode) ends it; "continue" tells the model the call was refused and by whom, and it
   * answers. An agent's own `rejection` wins. A denial by a rule always goes back to the model.
   */
  rejection?: "stop" | "continue"
  /** How long a permission request or question waits for an answer, in ms. Default (or Infinity): no limit. */
  askTimeoutMs?: number
  /**
   * For headless hosts without a handler: permission requests that would wait for a human
   * are denied ("deny") or allowed ("allow"), and questions are rejected. Default: unset.
   */
  nonInteractive?: "deny" | "allow"
  /** What an "always" approval covers: the session and its children (default), or every session. */
  approvalScope?: ApprovalScope
  /**
   * Gets the runtime's warnings (a model the catalogue does not know, once per model), which a
   * CLI's user should not see unless the host says so. Default: console.warn.
   */
  logger?: Logger
  /** Called when an event listener throws. Default: console.error. */
  onListenerError?: (error: unknown, event: Event) => void
  /**
   * Gets each error a tool call of the runtime's ends with, as thrown (stack included), with the
   * call (`sessionID`, `messageID`, `callID`, `tool`, `input`): for logs and error trackers, since
   * the model and the stored part get only the message. Refusals come too (tell them apart with
   * `Permission.DeniedError.isInstance` and the like); calls cut off by a cancel and
   * provider-executed tools do not. Not awaited; a handler that throws or rejects is logged with
   * console.error and the turn goes on.
   */
  onToolError?: ToolErrorHandler
  /**
   * OpenTelemetry spans of every model call and tool call, named and attributed as the AI SDK's
   * `streamText` makes them (`ai.streamText`, `ai.streamText.doStream`, `ai.toolCall`): the AI
   * SDK's telemetry settings. Without `tracer`, the global one of `@opentelemetry/api` (an
   * optional peer dependency). Default: off.
   */
  telemetry?: TelemetrySettings
}

const STORAGE_METHODS = [
  "getSession",
  "listSessions",
  "getMessage",
  "listMessages",
  "getValue",
  "listValues",
  "write",
  "close",
]
const SNAPSHOT_METHODS = ["track", "patch", "diff", "restore", "revert"]
const isFunction = (value: unknown) => typeof value === "function"

export const Options = z.strictObject({
  agents: withOwnNames(z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
  defaultAgent: z.string().min(1).optional(),
  permission: Ruleset.optional(),
  snapshot: z
    .custom<Snapshot>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        SNAPSHOT_METHODS.every((method) => isFunction((value as Record<string, unknown>)[method])),
      { message: `expected a Snapshot (${SNAPSHOT_METHODS.join(", ")})` },
    )
    .optional(),
  instructions: z
    .union([
      z.string().transform((text) => [text]),
      z.array(
        z.union([
          z.string(),
          z.custom<InstructionSource>(isFunction, {
            message: "expected a string or an InstructionSource function",
          }),
        ]),
      ),
    ])
    .optional(),
  // Each command is checked by the command runner, which names the command in its errors.
  commands: withOwnNames(z.record(z.string(), z.unknown())).optional(),
  retry: RetryOptions.optional(),
  // setTimeout fires at once beyond 2^31-1 ms
  streamIdleTimeoutMs: z.number().int().positive().max(2_147_483_647).optional(),
  compaction: CompactionConfig.optional(),
  git: z.boolean().optional(),
  environment: z.enum(["date", "workspace", "none"]).optional(),
  titles: z.boolean().optional(),
  hooks: z
    .strictObject(
      Object.fromEntries(
        (
          [
            "chat.message",
            "chat.params",
            "chat.system",
            "tool.before",
            "tool.after",
            "text.complete",
          ] as const
        ).map((name) => [
          name,
          z
            .custom<NonNullable<Hooks[typeof name]>>(isFunction, { message: "expected a function" })
            .optional(),
        ]),
      ),
    )
    .optional(),
  model: ModelInput.optional(),
  models: z.array(ModelInput).min(1).optional(),
  smallModel: ModelInput.optional(),
  provider: z
    .custom<Provider>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        ["getModel", "defaultModel", "smallModel"].every((method) =>
          isFunction((value as Record<string, unknown>)[method]),
        ),
      { message: "expected a Provider (getModel, defaultModel, smallModel): see createProvider" },
    )
    .optional(),
  tools: z
    .custom<ToolInfo[] | Record<string, AITool>>((value) => typeof value === "object" && value !== null, {
      message: "expected an array of tools, or an AI SDK tool set ({ name: tool })",
    })
    .superRefine((tools, context) => {
      const entries: [string | number, unknown][] = Array.isArray(tools)
        ? tools.map((tool, index) => [index, tool])
        : Object.entries(tools)
      for (const [key, tool] of entries) {
        const problem = Array.isArray(tools) ? notToolInfo(tool) : notAITool(tool)
        if (problem) context.addIssue({ code: "custom", path: [key], message: problem })
      }
    })
    .optional(),
  storage: z
    .custom<Storage>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        STORAGE_METHODS.every((method) => isFunction((value as Record<string, unknown>)[method])),
      { message: `expected a Storage (${STORAGE_METHODS.join(", ")})` },
    )
    .optional(),
  coordinator: z
    .union([
      z.literal(false),
      z.custom<Coordinator>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          ["claim", "publish", "subscribe"].every((method) =>
            isFunction((value as Record<string, unknown>)[method]),
          ),
        { message: "expected a Coordinator (claim, publish, subscribe)" },
      ),
    ])
    .optional(),
  directory: z.string().min(1).optional(),
  onPermission: z.custom<PermissionHandler>(isFunction, { message: "expected a function" }).optional(),
  onQuestion: z.custom<QuestionHandler>(isFunction, { message: "expected a function" }).optional(),
  question: z.boolean().optional(),
  task: z.boolean().optional(),
  todos: z.boolean().optional(),
  askTimeoutMs: TimeoutMs.optional(),
  nonInteractive: z.enum(["deny", "allow"]).optional(),
  rejection: z.enum(["stop", "continue"]).optional(),
  approvalScope: z.enum(["session", "runtime"]).optional(),
  telemetry: z
    .object({
      isEnabled: z.boolean().optional(),
      recordInputs: z.boolean().optional(),
      recordOutputs: z.boolean().optional(),
      functionId: z.string().optional(),
      metadata: z.record(z.string(), z.custom<AttributeValue>()).optional(),
      tracer: z
        .custom<Tracer>((value) => isFunction((value as Record<string, unknown> | null)?.startSpan), {
          message: "expected an OpenTelemetry Tracer (startSpan)",
        })
        .optional(),
    })
    .optional(),
  logger: z
    .custom<Logger>((value) => isFunction((value as Record<string, unknown> | null)?.warn), {
      message: "expected a logger ({ warn(message) })",
    })
    .optional(),
  onListenerError: z
    .custom<RuntimeOptions["onListenerError"]>(isFunction, { message: "expected a function" })
    .optional(),
  onToolError: z.custom<ToolErrorHandler>(isFunction, { message: "expected a function" }).optional(),
})

function notToolInfo(value: unknown): string | undefined {
  const tool = value as Record<string, unknown> | null
  if (typeof tool === "object" && tool !== null && typeof tool.id === "string" && isFunction(tool.execute))
    return undefined
  return typeof tool === "object" && tool !== null && "inputSchema" in tool
    ? "an AI SDK tool has no id: use Tool.fromAI(id, tool), or pass the tools as { name: tool }"
    : "expected a Tool.Info (Tool.define)"
}

function notAITool(value: unknown): string | undefined {
  return typeof value === "object" && value !== null && "inputSchema" in value
    ? undefined
    : "expected an AI SDK tool (tool(), dynamicTool(), an MCP client's tools())"
}
