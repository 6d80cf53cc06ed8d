import type { TextStreamPart, ToolSet } from "ai"
import type { Assistant } from "../message/info.js"
import type { Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import type { ModelInfo } from "../provider/model-info.js"
import type { OwnRowWriters } from "../session/writers.js"
import type { Snapshot } from "../snapshot/port.js"
import type { ToolErrorHandler } from "../tool/tool-error.js"
import type { SerialQueue } from "../util/serial-queue.js"
import type { CreateInput, ProcessorRuntime } from "./create-input.js"
import type { TextCheckpoints } from "./text-checkpoint.js"

export type Stream = TextStreamPart<ToolSet>

/** The runtime's writers as the processor calls them, saying which rows it built (see OwnRows). */
export type CallSession = ProcessorRuntime["session"] & OwnRowWriters

/**
 * One model call's state, as the processor builds its assistant message from the stream (see
 * createCallState in processor.ts): the parts still open, and the writes, one after another in
 * the order they were asked for. Not the caller's turn (TurnResult), which may take many calls.
 */
export type CallState = {
  runtime: ProcessorRuntime
  session: CallSession
  model: { info: ModelInfo }
  hooks: CreateInput["hooks"]
  onToolError: ToolErrorHandler | undefined
  abort: AbortSignal
  snapshot: Snapshot | undefined
  /** The assistant message being built. */
  message: Assistant
  sessionID: string
  messageID: string
  texts: Map<string, TextPart | ReasoningPart>
  /** When a growing text or reasoning part is written (see createTextCheckpoints). */
  checkpoints: TextCheckpoints
  tools: Map<string, ToolPart>
  /** Progress a tool reported before the stream showed its call. */
  early: Map<string, { title?: string; metadata?: Record<string, unknown> }>
  stepSnapshot: string | undefined
  /**
   * The files as they were when the model call started, recorded while the provider answers.
   * The step's tools wait for it: a call that arrives at once must not change a file before
   * the state it changes from is recorded, or the change would be missing from every patch.
   */
  callSnapshot: Promise<string | undefined>
  /** A step already started from `callSnapshot`; a later one starts where the one before it ended. */
  callSnapshotUsed: boolean
  /** The state the call starts from, when the step before it ended there (see CreateInput). */
  snapshotFrom: string | undefined
  /** The state the call's last step ended in. */
  lastStepEnd: string | undefined
  /**
   * The files the step's tools said they change (absolute paths); undefined once a tool ran
   * that may change any file, so that the step's end scans the whole tree.
   */
  stepChanges: Set<string> | undefined
  /** A user's "no" ended the turn. */
  blocked: boolean
  /** Whether a rejection ends the turn ("stop") or goes back to the model. */
  rejection: "stop" | "continue"
  queue: SerialQueue
  /** The message went with the call's first part (see writePart). */
  messageWritten: boolean
  /** Writes asked for so far; with `settled`, tells whether anything changed after the step's end. */
  writes: number
  /** The message as the step's end wrote it, and the write count then. */
  settled: { message: string; writes: number } | undefined
  /**
   * The first write that failed. Whatever it was to store is not stored, so the turn must stop
   * (the processor throws it): a later write that succeeds would hide the gap.
   */
  writeFailure: { error: unknown } | undefined
  /**
   * Writes the part as it is now, after the writes asked for before. `built` when each of its
   * values came from the provider's stream or from this processor, none from a tool, a hook or a
   * host's Snapshot: storage then skips its schema parse (see OwnRows).
   */
  writePart(part: Part, built?: boolean): Promise<unknown>
  /** The IDs of a new part of the message. */
  newPart(): { id: string; sessionID: string; messageID: string }
}
