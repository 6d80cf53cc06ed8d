import { RuntimeClosedError } from "../error/runtime-closed.js"
import { parseID } from "../id/parse-id.js"
import { createLoopContext } from "./context.js"
import { createIntake } from "./intake.js"
import { createIntakeWaits, type IntakeWaits } from "./intake-waits.js"
import type { LoopDeps } from "./loop-deps.js"
import { createRunRegistry, type RunRegistry } from "./run.js"
import { callModel } from "./steps.js"
import { createTitles } from "./titles.js"

export type { CompactInput } from "./intake.js"

/** How long `cancel` waits at most for what it cancelled to stop (a killed process to exit). */
const CANCEL_WAIT_MS = 5_000

/** What the loop's own operations (cancel, stop, work outside runs) work with. */
type LoopParts = { deps: LoopDeps; runs: RunRegistry; waits: IntakeWaits }

/**
 * The prompt loop: stores user messages, and runs one loop per session that calls the model
 * step after step while it asks for tools. Prompts to a busy session join its run. The path of a
 * prompt: intake.ts (prompt, loop, compact; the runtime calls `intake` directly) -> run.ts (one
 * run per session, its start) -> steps.ts (the step loop, one step, the model call). Around it,
 * this object: cancel, stop, close and work outside runs.
 */
export function createLoop(deps: LoopDeps) {
  // Aborts on close: titles stop, and hooks outside a run stop being waited for.
  const closing = new AbortController()
  const context = createLoopContext(deps, (input) => callModel(deps, input))
  const runs = createRunRegistry(context)
  const titles = createTitles(deps, closing.signal)
  const waits = createIntakeWaits(closing.signal)
  const loop: LoopParts = { deps, runs, waits }
  return {
    /** prompt, loop and compact: where work enters the loop. */
    intake: createIntake(context, runs, titles, waits),
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
    cancel: (sessionID: string) => cancel(loop, sessionID),
    /** A cancel without the existence check: the relay's (from another process) and remove's. */
    cancelAnywhere(sessionID: string): void {
      cancelHere(loop, sessionID)
      void publishCancel(deps, sessionID)
    },
    cancelHere: (sessionID: string, sentAt?: number): void => {
      cancelHere(loop, sessionID, sentAt)
    },
    enterWork: (sessionID: string) => enterWork(loop, sessionID),
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

/**
 * Cancels the session's run, its shell command and its prompts not stored yet, in this
 * process or (with a coordinator) whichever runs it. The abort happens before this returns;
 * the promise resolves once what ran here has stopped (the session is idle then), waiting at
 * most CANCEL_WAIT_MS, and rejects with NotFoundError for a session that does not exist (an
 * idle one is a no-op).
 */
function cancel(loop: LoopParts, sessionID: string): Promise<void> {
  const id = parseID("sessionID", "session", sessionID)
  if (cancelHere(loop, id)) {
    void publishCancel(loop.deps, id)
    return windDown(loop, id)
  }
  // Nothing of it runs here: it may run in another process, be idle, or not exist.
  return loop.deps.session.get(id).then(() => {
    void publishCancel(loop.deps, id)
  })
}

/**
 * Cancels what this process runs of the session (with `sentAt`, only what started by then);
 * false when nothing of it was running here.
 */
function cancelHere(loop: LoopParts, sessionID: string, sentAt = Number.POSITIVE_INFINITY): boolean {
  const run = loop.runs.get(sessionID)
  const stopsRun = run !== undefined && run.startedAt <= sentAt
  if (stopsRun) run.abort.abort()
  return loop.waits.cancel(sessionID, sentAt) || stopsRun
}

function publishCancel(deps: LoopDeps, sessionID: string) {
  return deps.coordinator?.publish({ type: "cancel", sessionID }).catch(() => undefined)
}

/**
 * Resolves once the session's run and its work here have stopped (a killed command's process
 * tree has gone, its last writes landed), or after CANCEL_WAIT_MS: a wait with no end would
 * make cancel hang.
 */
async function windDown(loop: LoopParts, sessionID: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CANCEL_WAIT_MS)
  })
  try {
    await Promise.race([loop.runs.settled(sessionID), bound])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Work on the session outside a run (a user's shell command): like a prompt's wait before its
 * message is stored, its signal aborts on cancel, stop and close; reads of the session leave
 * what it writes alone, and a cancel waits for it; it writes once `ready` resolves (what a
 * stopped process left in the session is closed first); `end` once it is done.
 */
function enterWork(
  loop: LoopParts,
  sessionID: string,
): { signal: AbortSignal; ready: Promise<void>; end(): void } {
  const wait = loop.waits.enter(sessionID)
  const work = loop.runs.enterWork(sessionID)
  return {
    signal: wait.signal,
    ready: work.ready,
    end() {
      wait.end()
      work.end()
    },
  }
}

export type Loop = ReturnType<typeof createLoop>
