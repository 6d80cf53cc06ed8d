import { SessionMovedError } from "../coordination/session-moved-error.js"
import type { WithParts } from "../message/info.js"
import type { LoopContext } from "./context.js"
import { executeRun } from "./run.js"
import type { RunState } from "./run-state.js"

/**
 * A run of a session that other processes may also run (a coordinator is configured): it starts
 * once this process owns the session, so one model call at a time happens per session across
 * processes, and it is cancelled if ownership is lost (SessionMovedError when another process
 * took the session). Prompts that another process stored
 * meanwhile are already in the history it loads; a caller cancelled while another process
 * runs the session gets the session's latest message.
 */
export async function executeOwnedRun(
  context: LoopContext,
  sessionID: string,
  run: RunState,
): Promise<WithParts> {
  const { coordinator, storage } = context.deps
  if (!coordinator) return executeRun(context, sessionID, run)
  const lease = await coordinator.claim(sessionID, { wait: true, signal: run.abort.signal })
  if (!lease) {
    const [latest] = await storage.listMessages(sessionID, { limit: 1 })
    if (!latest) throw run.abort.signal.reason
    return latest
  }
  run.owned = true
  const onLost = () => run.abort.abort()
  lease.lost.addEventListener("abort", onLost, { once: true })
  let answer: WithParts
  try {
    answer = await executeRun(context, sessionID, run)
  } finally {
    lease.lost.removeEventListener("abort", onLost)
    // A lease whose link broke is gone already; the answer stands.
    await lease.release().catch(() => undefined)
  }
  // The session goes on in another process: the callers hear that, not of a cancelled turn.
  if (SessionMovedError.isInstance(lease.lost.reason)) throw lease.lost.reason
  return answer
}
