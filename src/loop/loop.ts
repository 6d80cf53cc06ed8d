import { RuntimeClosedError } from "../error/runtime-closed.js"
import { parseID } from "../id/parse-id.js"
import { createLoopContext } from "./context.js"
import { createIntake } from "./intake.js"
import { createIntakeWaits } from "./intake-waits.js"
import type { LoopDeps } from "./loop-deps.js"
import { createRunRegistry } from "./run-registry.js"
import { createTitles } from "./titles.js"

export type { CompactInput } from "./intake.js"

/** How long `cancel` waits at most for what it cancelled to stop (a killed process to exit). */
const CANCEL_WAIT_MS = 5_000

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
  const waits = createIntakeWaits(closing.signal)
  const intake = createIntake(context, runs, titles, waits)

  /**
   * Cancels what this process runs of the session (with `sentAt`, only what started by then);
   * false when nothing of it was running here.
   */
  function cancelHere(sessionID: string, sentAt = Number.POSITIVE_INFINITY): boolean {
    const run = runs.get(sessionID)
    const stopsRun = run !== undefined && run.startedAt <= sentAt
    if (stopsRun) run.abort.abort()
    return waits.cancel(sessionID, sentAt) || stopsRun
  }
  const publishCancel = (sessionID: string) =>
    deps.coordinator?.publish({ type: "cancel", sessionID }).catch(() => undefined)

  /**
   * Resolves once the session's run and its work here have stopped (a killed command's process
   * tree has gone, its last writes landed), or after CANCEL_WAIT_MS: a wait with no end would
   * make cancel hang.
   */
  async function windDown(sessionID: string): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CANCEL_WAIT_MS)
    })
    try {
      await Promise.race([runs.settled(sessionID), bound])
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    ...intake,
    resume: runs.resume,
    repairIfIdle: runs.repairIfIdle,
    /** Cancels the runs of these sessions, and their prompts not stored yet; waits until the runs stopped. */
    stop(sessionIDs: readonly string[]): Promise<void> {
      for (const sessionID of sessionIDs) waits.cancel(sessionID)
      return runs.stop(sessionIDs)
    },
    rulesFor: context.rulesFor,
    /** Running, or with tool calls a stopped process left waiting for an answer. */
    async isBusy(sessionID: string): Promise<boolean> {
      return runs.get(sessionID) !== undefined || (await deps.asks.storedCalls(sessionID)).size > 0
    },
    /**
     * Cancels the session's run, its shell command and its prompts not stored yet, in this
     * process or (with a coordinator) whichever runs it. The abort happens before this returns;
     * the promise resolves once what ran here has stopped (the session is idle then), waiting at
     * most CANCEL_WAIT_MS, and rejects with NotFoundError for a session that does not exist (an
     * idle one is a no-op).
     */
    cancel(sessionID: string): Promise<void> {
      const id = parseID("sessionID", "session", sessionID)
      if (cancelHere(id)) {
        void publishCancel(id)
        return windDown(id)
      }
      // Nothing of it runs here: it may run in another process, be idle, or not exist.
      return deps.session.get(id).then(() => {
        void publishCancel(id)
      })
    },
    /** A cancel without the existence check: the relay's (from another process) and remove's. */
    cancelAnywhere(sessionID: string): void {
      cancelHere(sessionID)
      void publishCancel(sessionID)
    },
    cancelHere: (sessionID: string, sentAt?: number): void => {
      cancelHere(sessionID, sentAt)
    },
    /**
     * Work on the session outside a run (a user's shell command): like a prompt's wait before its
     * message is stored, its signal aborts on cancel, stop and close; reads of the session leave
     * what it writes alone, and a cancel waits for it; it writes once `ready` resolves (what a
     * stopped process left in the session is closed first); `end` once it is done.
     */
    enterWork(sessionID: string): { signal: AbortSignal; ready: Promise<void>; end(): void } {
      const wait = waits.enter(sessionID)
      const work = runs.enterWork(sessionID)
      return {
        signal: wait.signal,
        ready: work.ready,
        end() {
          wait.end()
          work.end()
        },
      }
    },
    /** Forgets what the loop knew of sessions that were removed. */
    forget: runs.forget,
    /** This process owns the session and runs it now (with a coordinator). */
    runsHere: (sessionID: string) => runs.get(sessionID)?.owned === true,
    takeRemotePrompt: runs.takeRemotePrompt,
    status: (sessionID: string) => deps.status.get(parseID("sessionID", "session", sessionID)),
    statuses: () => deps.status.active(),
    /** Cancels every run and title, and waits for them to settle. */
    async close(): Promise<void> {
      closing.abort(new RuntimeClosedError({ message: "The runtime is closed" }))
      await Promise.all([runs.stopAll(), titles.settled()])
    },
  }
}
