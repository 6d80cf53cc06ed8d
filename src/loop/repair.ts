import type { Bus } from "../bus/bus.js"
import { AbortedError } from "../message/errors.js"
import type { Assistant, WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import { interrupted, STOPPED_TOOL } from "../processor/close.js"
import type { Storage, StorageWrite } from "../storage/port.js"
import { isStorageFault } from "../storage/storage-fault.js"
import type { LoopContext } from "./context.js"

/**
 * A process that stops mid-turn leaves only its newest messages unfinished: one assistant
 * message per running loop, with the parts of its last step.
 */
const RECENT_MESSAGES = 20

const STOPPED_MESSAGE = "The process running this session stopped before the turn finished."

/**
 * Closes in storage what a process that stopped mid-turn left open, as a cancel would have
 * closed it, and returns `messages` as now stored. An assistant message without an end time
 * gets one; if its step had not finished it also gets an AbortedError, its running and pending
 * tools become interrupted errors, and streamed text gets an end time (a part whose text was
 * never checkpointed stays, empty: clients were told of it, and the model is not sent it). A summary cut off mid-way is removed: its
 * compaction request is still stored, and the next run writes the summary again. A tool call
 * whose permission request or question is still stored (`waitingCalls`) is left running with
 * its message: a reply can still resume it. Each message is repaired in one atomic write.
 */
export async function repairMessages(
  deps: { storage: Storage; bus: Bus },
  messages: readonly WithParts[],
  waitingCalls: ReadonlySet<string> = new Set(),
  why: string = STOPPED_MESSAGE,
): Promise<WithParts[]> {
  const now = Date.now()
  const repaired: WithParts[] = []
  for (const message of messages) {
    if (message.info.role !== "assistant" || !unfinished(message)) {
      repaired.push(message)
      continue
    }
    const repair = repairMessage(message as { info: Assistant; parts: Part[] }, now, waitingCalls, why)
    if (repair.writes.length > 0) {
      await deps.storage.write(repair.writes)
      for (const write of repair.writes) publish(deps.bus, write)
    }
    if (repair.message) repaired.push(repair.message)
  }
  return repaired
}

/** Repairs the newest messages of a session, for a caller about to read it. */
export async function repairSession(
  deps: { storage: Storage; bus: Bus },
  sessionID: string,
  waitingCalls: ReadonlySet<string>,
  why?: string,
): Promise<void> {
  await repairMessages(
    deps,
    await deps.storage.listMessages(sessionID, { limit: RECENT_MESSAGES }),
    waitingCalls,
    why,
  )
}

/**
 * An answer without an end time, or one completed while a part stayed open (a write that
 * failed after the message's own: the process went on, its storage did not).
 */
function unfinished(message: WithParts): boolean {
  if (message.info.role !== "assistant") return false
  if (message.info.time.completed === undefined) return true
  return message.parts.some(
    (part) =>
      (part.type === "tool" && (part.state.status === "pending" || part.state.status === "running")) ||
      ((part.type === "text" || part.type === "reasoning") &&
        part.time !== undefined &&
        part.time.end === undefined),
  )
}

/**
 * How a run ends that failed (run.ts): a prompt stored from now on is not its. One that storage
 * failed under also stops its tools and leaves what it could not write open: the next read or
 * run of the session closes that, once storage takes writes again, saying why.
 */
export function storageFailed(
  context: LoopContext,
  sessionID: string,
  run: { closed?: boolean; abort: AbortController },
) {
  return (error: unknown): never => {
    run.closed = true
    if (isStorageFault(error)) {
      run.abort.abort(error)
      context.repaired.delete(sessionID)
      context.storageFailures.set(sessionID, storageFailedMessage(error))
    }
    throw error
  }
}

/** Why a turn stopped when this process's storage failed under it, for the message repair closes. */
export function storageFailedMessage(error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error)
  return `${STORAGE_FAILED_PREFIX} (${detail}).`
}

const STORAGE_FAILED_PREFIX = "The turn stopped before it finished: a storage write failed"

function repairMessage(
  message: { info: Assistant; parts: Part[] },
  now: number,
  waitingCalls: ReadonlySet<string>,
  why: string,
): { writes: StorageWrite[]; message: WithParts | undefined } {
  const { info } = message
  if (info.summary && info.finish === undefined) {
    const removal: StorageWrite = { type: "message.remove", sessionID: info.sessionID, messageID: info.id }
    return { writes: [removal], message: undefined }
  }
  const writes: StorageWrite[] = []
  const parts: Part[] = []
  let waiting = false
  for (const part of message.parts) {
    const closed = closePart(part, now, waitingCalls)
    if (closed === "waiting") {
      waiting = true
      parts.push(part)
    } else {
      if (closed !== part) writes.push({ type: "part.put", part: closed })
      parts.push(closed)
    }
  }
  if (waiting) return { writes, message: { info, parts } }
  // Completed already: only its parts were left open; the message keeps what it says.
  if (info.time.completed !== undefined) return { writes, message: { info, parts } }
  // A finished step lost only its last write: it ended, without error.
  const error = info.finish === undefined ? new AbortedError({ message: why }).toObject() : undefined
  const closedInfo: Assistant = {
    ...info,
    ...(error ? { error } : {}),
    time: { ...info.time, completed: now },
  }
  writes.push({ type: "message.put", info: closedInfo })
  return { writes, message: { info: closedInfo, parts } }
}

/**
 * Whether repair closed this answer because the process running it, or its storage, stopped
 * mid-step: the turn was cut, not cancelled or failed, and `loop()` may go on with it.
 */
export function wasCut(info: Assistant): boolean {
  if (info.error?.name !== "AbortedError") return false
  const { message } = info.error.data
  return message === STOPPED_MESSAGE || message.startsWith(STORAGE_FAILED_PREFIX)
}

/** The part closed, itself when nothing was open, "waiting" for a resumable call. */
function closePart(part: Part, now: number, waitingCalls: ReadonlySet<string>): Part | "waiting" {
  if (part.type === "text" || part.type === "reasoning") {
    // Kept even when empty (its text never reached a checkpoint): clients were told of it.
    if (part.time?.end !== undefined) return part
    return { ...part, time: { start: part.time?.start ?? now, end: now } }
  }
  if (part.type === "tool" && (part.state.status === "pending" || part.state.status === "running")) {
    return waitingCalls.has(part.callID) ? "waiting" : interrupted(part, now, STOPPED_TOOL)
  }
  return part
}

function publish(bus: Bus, write: StorageWrite): void {
  if (write.type === "message.put")
    bus.publish("message.updated", { sessionID: write.info.sessionID, info: write.info })
  else if (write.type === "part.put")
    bus.publish("message.part.updated", { sessionID: write.part.sessionID, part: write.part })
  else if (write.type === "message.remove")
    bus.publish("message.removed", { sessionID: write.sessionID, messageID: write.messageID })
}
