import { Decimal } from "decimal.js"
import { getUsage } from "../session/usage.js"
import type { Stream, Turn } from "./turn.js"

/** A step's start: a step-start part, with a snapshot of the files when a Snapshot port is given. */
export async function startStep(turn: Turn): Promise<void> {
  turn.stepSnapshot = turn.snapshot ? await turn.snapshot.track() : undefined
  const snapshot = turn.stepSnapshot ? { snapshot: turn.stepSnapshot } : {}
  await turn.writePart({ ...turn.newPart(), type: "step-start", ...snapshot })
}

/**
 * A step's end: a step-finish part with its usage and cost, a patch part when files changed,
 * and the message's finish, tokens and cost written with the session's totals in one write.
 */
export async function finishStep(turn: Turn, part: Extract<Stream, { type: "finish-step" }>): Promise<void> {
  const { message, snapshot } = turn
  const usage = getUsage({ model: turn.model.info, usage: part.usage, metadata: part.providerMetadata })
  message.finish = part.finishReason
  message.cost = new Decimal(message.cost).plus(usage.cost).toNumber()
  message.tokens = usage.tokens
  const after = snapshot ? await snapshot.track() : undefined
  await turn.writePart({
    ...turn.newPart(),
    type: "step-finish",
    reason: part.finishReason,
    ...(after ? { snapshot: after } : {}),
    cost: usage.cost,
    tokens: usage.tokens,
  })
  if (snapshot && turn.stepSnapshot) {
    const patch = await snapshot.patch(turn.stepSnapshot)
    if (patch.files.length > 0)
      await turn.writePart({ ...turn.newPart(), type: "patch", hash: patch.hash, files: patch.files })
  }
  turn.stepSnapshot = undefined
  await turn.queue.run(() =>
    turn.runtime.session.recordUsage(turn.sessionID, usage, structuredClone(message)),
  )
}
