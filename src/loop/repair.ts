import type { Bus } from "../bus/bus.js"
import { AbortedError } from "../message/errors.js"
import type { Assistant, WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import { interrupted, STOPPED_TOOL } from "../processor/close.js"
import type { Storage, StorageWrite } from "../storage/port.js"

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
 * tools become interrupted errors, and streamed text gets an end time (text that was never
 * checkpointed is an empty part, and is removed). A summary cut off mid-way is removed: its
 * compaction request is still stored, and the next run writes the summary again. A tool call
 * whose permission request or question is still stored (`waitingCalls`) is left running with
 * its message: a reply can still resume it. Each message is repaired in one atomic write.
 */
export async function repairMessages(
  deps: { storage: Storage; bus: Bus },
  messages: readonly WithParts[],
  waitingCalls: ReadonlySet<string> = new Set(),
): Promise<WithParts[]> {
  const now = Date.now()
  const repaired: WithParts[] = []
  for (const message of messages) {
    if (message.info.role !== "assistant" || message.info.time.completed !== undefined) {
      repaired.push(message)
      continue
    }
    const repair = repairMessage(message as { info: Assistant; parts: Part[] }, now, waitingCalls)
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
): Promise<void> {
  await repairMessages(
    deps,
    await deps.storage.listMessages(sessionID, { limit: RECENT_MESSAGES }),
    waitingCalls,
  )
}

function repairMessage(
  message: { info: Assistant; parts: Part[] },
  now: number,
  waitingCalls: ReadonlySet<string>,
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
    } else if (closed === undefined) {
      writes.push({
        type: "part.remove",
        sessionID: part.sessionID,
        messageID: part.messageID,
        partID: part.id,
      })
    } else {
      if (closed !== part) writes.push({ type: "part.put", part: closed })
      parts.push(closed)
    }
  }
  if (waiting) return { writes, message: { info, parts } }
  // A finished step lost only its last write: it ended, without error.
  const error =
    info.finish === undefined ? new AbortedError({ message: STOPPED_MESSAGE }).toObject() : undefined
  const closedInfo: Assistant = {
    ...info,
    ...(error ? { error } : {}),
    time: { ...info.time, completed: now },
  }
  writes.push({ type: "message.put", info: closedInfo })
  return { writes, message: { info: closedInfo, parts } }
}

/** The part closed, itself when nothing was open, undefined to remove it, "waiting" for a resumable call. */
function closePart(part: Part, now: number, waitingCalls: ReadonlySet<string>): Part | "waiting" | undefined {
  if (part.type === "text" || part.type === "reasoning") {
    if (part.time?.end !== undefined) return part
    if (part.text === "") return undefined
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
  else if (write.type === "part.remove")
    bus.publish("message.part.removed", {
      sessionID: write.sessionID,
      messageID: write.messageID,
      partID: write.partID,
    })
}
