import { Decimal } from "decimal.js"
import type { Part } from "../message/part.js"
import { getUsage } from "../session/usage.js"
import { ownRows } from "../session/writers.js"
import { copyPlain } from "../util/copy-plain.js"
import { laterStepStart, stepEnd } from "./step-snapshot.js"
import { isOwnMessage, type Stream, type Turn } from "./turn.js"

/** A step's start: a step-start part, with a snapshot of the files when a Snapshot port is given. */
export async function startStep(turn: Turn): Promise<void> {
  // The call's first step starts from the state recorded when the call started.
  const recorded = turn.callSnapshotUsed ? laterStepStart(turn) : turn.callSnapshot
  turn.callSnapshotUsed = true
  turn.stepSnapshot = await recorded
  const snapshot = turn.stepSnapshot ? { snapshot: turn.stepSnapshot } : {}
  await turn.writePart({ ...turn.newPart(), type: "step-start", ...snapshot }, isHash(turn.stepSnapshot))
}

/**
 * A step's end: a step-finish part with its usage and cost, a patch part when files changed, and
 * the message's finish, tokens, cost and end time, written with the session's totals in one
 * write. The message counts as complete here; the processor writes it again only if anything
 * changes after.
 */
export async function finishStep(turn: Turn, part: Extract<Stream, { type: "finish-step" }>): Promise<void> {
  const { message } = turn
  const usage = getUsage({ model: turn.model.info, usage: part.usage, metadata: part.providerMetadata })
  message.finish = part.finishReason
  message.cost = new Decimal(message.cost).plus(usage.cost).toNumber()
  if (usage.costUnknown) message.costUnknown = true
  message.tokens = usage.tokens
  const { snapshot: after, patch } = await stepEnd(turn)
  const parts: Part[] = [
    {
      ...turn.newPart(),
      type: "step-finish",
      reason: part.finishReason,
      ...(after ? { snapshot: after } : {}),
      cost: usage.cost,
      tokens: usage.tokens,
    },
  ]
  if (patch && patch.files.length > 0)
    parts.push({ ...turn.newPart(), type: "patch", hash: patch.hash, files: patch.files })
  // Usage and cost come checked from getUsage; the patch's files come from the host's Snapshot.
  const own = ownRows(isOwnMessage(message), typeof part.finishReason === "string" && isHash(after), false)
  turn.stepSnapshot = undefined
  message.time.completed = Date.now()
  const written = copyPlain(message)
  await turn.write(() => turn.session.recordUsage(turn.sessionID, usage, written, parts, own))
  turn.settled = { message: JSON.stringify(message), writes: turn.writes }
}

/** A state a Snapshot returned that can be stored as it is (a host's port may return anything). */
function isHash(hash: unknown): boolean {
  return hash === undefined || typeof hash === "string"
}
