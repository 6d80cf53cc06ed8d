import { RuntimeClosedError } from "../error/runtime-closed.js"
import { parseID } from "../id/parse-id.js"
import { createLoopContext } from "./context.js"
import { createIntake } from "./intake.js"
import type { LoopDeps } from "./loop-deps.js"
import { createRunRegistry } from "./run-registry.js"
import { createTitles } from "./titles.js"

export type { CompactInput } from "./intake.js"

/**
 * The prompt loop: stores user messages, and runs one loop per session that calls the model
 * step after step while it asks for tools. Prompts to a busy session join its run. The parts:
 * intake.ts (prompt, loop, compact) -> run-registry.ts (one run per session) -> run.ts (repair,
 * resumes) -> steps.ts (the step loop, compactions, the exit rule) -> step.ts (one model call).
 */
export function createLoop(deps: LoopDeps) {
  // Aborts on close: titles stop, and hooks outside a run stop being waited for.
  const closing = new AbortController()
  const context = createLoopContext(deps)
  const runs = createRunRegistry(context)
  const titles = createTitles(deps, closing.signal)
  const intake = createIntake(context, runs, titles, closing.signal)

  return {
    ...intake,
    resume: runs.resume,
    repairIfIdle: runs.repairIfIdle,
    stop: runs.stop,
    rulesFor: context.rulesFor,
    /** Running, or with tool calls a stopped process left waiting for an answer. */
    async isBusy(sessionID: string): Promise<boolean> {
      return runs.get(sessionID) !== undefined || (await deps.asks.storedCalls(sessionID)).size > 0
    },
    /** Cancels the session's run, in this process or (with a coordinator) whichever runs it. */
    cancel(sessionID: string): void {
      const id = parseID("sessionID", "session", sessionID)
      runs.get(id)?.abort.abort()
      deps.coordinator?.publish({ type: "cancel", sessionID: id }).catch(() => undefined)
    },
    cancelHere: (sessionID: string) => runs.get(sessionID)?.abort.abort(),
    /** This process owns the session and runs it now (with a coordinator). */
    runsHere: (sessionID: string) => runs.get(sessionID)?.owned === true,
    takeRemotePrompt: runs.takeRemotePrompt,
    status: (sessionID: string) => deps.status.get(parseID("sessionID", "session", sessionID)),
    /** Cancels every run and title, and waits for them to settle. */
    async close(): Promise<void> {
      closing.abort(new RuntimeClosedError({ message: "The runtime is closed" }))
      await Promise.all([runs.stopAll(), titles.settled()])
    },
  }
}
