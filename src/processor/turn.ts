import type { TextStreamPart, ToolSet } from "ai"
import type { Assistant } from "../message/info.js"
import type { Part, ReasoningPart, TextPart, ToolPart } from "../message/part.js"
import type { ModelInfo } from "../provider/model-info.js"
import { type OwnRowWriters, ownRows } from "../session/writers.js"
import type { Snapshot } from "../snapshot/port.js"
import { copyPlain } from "../util/copy-plain.js"
import { createSerialQueue } from "../util/serial-queue.js"
import type { CreateInput, ProcessorRuntime } from "./create-input.js"
import { inputRecord } from "./parts.js"
import { createTextCheckpoints } from "./text-checkpoint.js"

export type Stream = TextStreamPart<ToolSet>

/**
 * One assistant message as the processor builds it from the stream: the parts still open, and
 * the writes, one after another in the order they were asked for.
 */
export type Turn = ReturnType<typeof createTurn>

export const DEFAULT_CHECKPOINT_MS = 1_000

/**
 * Whether the processor built the assistant message from checked values (see OwnRows): not
 * when it holds an error, whose fields come from whatever failed.
 */
export function isOwnMessage(message: Assistant): boolean {
  return message.error === undefined && (message.finish === undefined || typeof message.finish === "string")
}

/** The runtime's writers as the processor calls them, saying which rows it built (see OwnRows). */
export type TurnSession = ProcessorRuntime["session"] & OwnRowWriters

export function createTurn(input: CreateInput) {
  const { runtime } = input
  const session = runtime.session as TurnSession
  const message: Assistant = copyPlain(input.assistantMessage)
  const { sessionID, id: messageID } = message
  const queue = createSerialQueue()
  let messageWritten = false
  const checkpoints = createTextCheckpoints({
    intervalMs: input.checkpointMs ?? DEFAULT_CHECKPOINT_MS,
    // A timer's write that fails is noted as the turn's writeFailure; the next part throws it.
    write: (part) => turn.writePart(part, true).catch(() => undefined),
  })
  const turn = {
    runtime: runtime as ProcessorRuntime,
    session,
    model: input.model as { info: ModelInfo },
    hooks: input.hooks,
    onToolError: input.onToolError,
    abort: input.abort,
    snapshot: input.snapshot as Snapshot | undefined,
    message,
    sessionID,
    messageID,
    texts: new Map<string, TextPart | ReasoningPart>(),
    /** When a growing text or reasoning part is written (see createTextCheckpoints). */
    checkpoints,
    tools: new Map<string, ToolPart>(),
    /** Progress a tool reported before the stream showed its call. */
    early: new Map<string, { title?: string; metadata?: Record<string, unknown> }>(),
    stepSnapshot: undefined as string | undefined,
    /**
     * The files as they were when the model call started, recorded while the provider answers.
     * The step's tools wait for it: a call that arrives at once must not change a file before
     * the state it changes from is recorded, or the change would be missing from every patch.
     */
    callSnapshot: Promise.resolve(undefined) as Promise<string | undefined>,
    /** A step already started from `callSnapshot`; a later one starts where the one before it ended. */
    callSnapshotUsed: false,
    /** The state the call starts from, when the step before it ended there (see CreateInput). */
    snapshotFrom: input.snapshot ? input.snapshotFrom : undefined,
    /** The state the call's last step ended in. */
    lastStepEnd: undefined as string | undefined,
    /**
     * The files the step's tools said they change (absolute paths); undefined once a tool ran
     * that may change any file, so that the step's end scans the whole tree.
     */
    stepChanges: new Set<string>() as Set<string> | undefined,
    /** A user's "no" ended the turn. */
    blocked: false,
    /** Whether a rejection ends the turn ("stop") or goes back to the model. */
    rejection: input.rejection ?? "stop",
    queue,
    /** Writes asked for so far; with `settled`, tells whether anything changed after the step's end. */
    writes: 0,
    /** The message as the step's end wrote it, and the write count then. */
    settled: undefined as { message: string; writes: number } | undefined,
    /**
     * The first write that failed. Whatever it was to store is not stored, so the turn must stop
     * (the processor throws it): a later write that succeeds would hide the gap.
     */
    writeFailure: undefined as { error: unknown } | undefined,
    /** Runs a write in order after the others, noting its failure for the turn. */
    write<T>(operation: () => Promise<T>): Promise<T> {
      return queue.run(() =>
        operation().catch((error: unknown) => {
          turn.writeFailure ??= { error }
          throw error
        }),
      )
    },
    /**
     * Writes the part as it is now. `built` when each of its values came from the provider's
     * stream or from this processor, none from a tool, a hook or a host's Snapshot: storage then
     * skips its schema parse (see OwnRows).
     */
    writePart: (part: Part, built = false) => {
      turn.writes++
      const copy = copyPlain(part)
      // The message goes with the first part: one write, and no message without its step.
      if (!messageWritten) {
        messageWritten = true
        const info = copyPlain(message)
        const own = ownRows(isOwnMessage(info), built)
        return turn.write(() => session.saveMessage({ info, parts: [copy] }, own))
      }
      return turn.write(() => session.updatePart(copy, ownRows(built)))
    },
    writeMessage: () => {
      turn.writes++
      messageWritten = true
      const info = copyPlain(message)
      return turn.write(() => session.updateMessage(info, ownRows(isOwnMessage(info))))
    },
    newPart: () => ({ id: runtime.session.newPartID(messageID), sessionID, messageID }),

    toolPart(callID: string, toolName: string): ToolPart {
      let part = turn.tools.get(callID)
      if (!part) {
        part = {
          ...turn.newPart(),
          type: "tool",
          callID,
          tool: toolName,
          state: { status: "pending", input: {}, raw: "" },
        }
        turn.tools.set(callID, part)
      }
      return part
    },

    markRunning(part: ToolPart, args: unknown): void {
      part.state = {
        status: "running",
        input: inputRecord(args),
        time: { start: Date.now() },
        ...turn.early.get(part.callID),
      }
      turn.early.delete(part.callID)
    },
  }
  return turn
}
