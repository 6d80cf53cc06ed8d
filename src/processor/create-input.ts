import type { LanguageModel } from "ai"
import type { Assistant } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import type { PermissionService } from "../permission/service.js"
import type { ModelInfo } from "../provider/model-info.js"
import type { SessionService } from "../session/service.js"
import type { Snapshot } from "../snapshot/port.js"
import type { ToolErrorHandler } from "../tool/tool-error.js"
import type { Hooks } from "./hooks.js"
import type { ModelStream } from "./model-stream.js"

/** What the processor writes through and asks through: a runtime's services, or a custom loop's. */
export type ProcessorRuntime = {
  session: Pick<
    SessionService,
    "updateMessage" | "saveMessage" | "updatePart" | "updatePartDelta" | "newPartID" | "recordUsage"
  >
  permission: Pick<PermissionService, "ask">
}

/**
 * What `SessionProcessor.create` needs for one turn of one assistant message: where to write, the
 * message, the model, the abort signal, and the optional snapshot, hooks and stream. A custom
 * loop makes one per step; see docs/processor.md.
 */
export type CreateInput = {
  /** Writes the message and its parts, and asks permissions for tool calls. */
  runtime: ProcessorRuntime
  /**
   * The assistant message this turn fills. It need not be stored yet: the processor writes it
   * with the turn's first part (a stored one is simply written again), and at the end.
   */
  assistantMessage: Assistant
  model: { language: LanguageModel; info: ModelInfo }
  abort: AbortSignal
  /** When given, each step records a snapshot and a patch part listing the files it changed. */
  snapshot?: Snapshot
  /**
   * The state the files are in as the call starts, when the caller knows it: the step before
   * it, in the same turn, ended there and nothing else ran since. The call's first step then
   * starts from it instead of scanning the tree. Leave it out at a turn's first step (the user
   * may have changed files between turns) and after anything that may have changed files.
   */
  snapshotFrom?: string
  /** Tool parts of earlier steps of this turn, oldest first: the doom-loop guard looks at them. */
  turn?: ToolPart[]
  /** The runtime's `tool.before`, `tool.after` and `text.complete` hooks. */
  hooks?: Pick<Hooks, "tool.before" | "tool.after" | "text.complete">
  /** Gets the error each failed tool call of the turn ends with (see RuntimeOptions.onToolError). */
  onToolError?: ToolErrorHandler
  /**
   * How long the stream may send nothing, while no tool runs, before the call fails as a
   * retryable APIError. Default 5 minutes (some reasoning models think that long in silence).
   */
  idleTimeoutMs?: number
  /** How often streamed text is written while it grows, so a crash loses at most this much. Default 1 s. */
  checkpointMs?: number
  /** How the model is called; default the provider's spec directly (`createProviderStream`). */
  stream?: ModelStream
  /**
   * What a rejected permission or dismissed question does: "stop" (default) ends the turn,
   * "continue" gives the model the refusal to answer.
   */
  rejection?: "stop" | "continue"
}
