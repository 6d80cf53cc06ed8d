import type { StoredDecision, ToolCallRef } from "../ask/decision.js"
import { UnknownError } from "../message/errors.js"
import type { WithParts } from "../message/info.js"
import { isStorageFault } from "../storage/storage-fault.js"
import type { LoopContext } from "./context.js"
import { executeOwnedRun } from "./owned-run.js"
import { repairSession, storageFailedMessage } from "./repair.js"
import type { Resume, Run, RunState } from "./run-state.js"

type StartOptions = Partial<Pick<RunState, "compact" | "resumes" | "holdForAnswers" | "continueCut">>

/**
 * The sessions this runtime is running: one run per session, which joined prompts share; its
 * status; cancel and stop; and answers that resume a stopped process's waiting calls.
 */
export function createRunRegistry(context: LoopContext) {
  const { deps } = context
  const runs = new Map<string, Run>()

  function start(sessionID: string, options: StartOptions = {}): Promise<WithParts> {
    const state: RunState = {
      abort: new AbortController(),
      startedAt: Date.now(),
      incoming: [],
      resumes: [],
      callers: { waiting: 0, aborted: 0 },
      ...options,
    }
    deps.status.set(sessionID, { type: "busy" })
    const done = executeOwnedRun(context, sessionID, state)
      .then(
        async (answer) => {
          // The turn's diff is a view of what the snapshots recorded: it can be had again from
          // session.diff, so a failure to compute it does not fail the turn.
          await deps.files.summarize(sessionID).catch(() => undefined)
          return answer
        },
        storageFailed(sessionID, state),
      )
      .finally(() => {
        runs.delete(sessionID)
        deps.status.set(sessionID, { type: "idle" })
        // Answers that arrived after this run had passed its resumes get a run of their own.
        const left = state.resumes.splice(0)
        if (left.length > 0) startResumes(sessionID, left)
      })
    // The same object as the run sees, so what it marks (owned) is seen through the registry.
    runs.set(sessionID, Object.assign(state, { done }))
    return done
  }

  /**
   * A run that storage failed under stops its tools and leaves what it could not write open: the
   * next read or run of the session closes that (see repair.ts), once storage takes writes again.
   */
  function storageFailed(sessionID: string, state: RunState) {
    return (error: unknown): never => {
      if (isStorageFault(error)) {
        state.abort.abort(error)
        context.repaired.delete(sessionID)
        context.storageFailures.set(sessionID, storageFailedMessage(error))
      }
      throw error
    }
  }

  function startResumes(sessionID: string, resumes: Resume[]): void {
    start(sessionID, { resumes }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      deps.bus.publish("session.error", { sessionID, error: new UnknownError({ message }).toObject() })
    })
  }

  /** Cancels the runs of these sessions and waits until they have stopped writing. */
  async function stop(sessionIDs: readonly string[]): Promise<void> {
    const stopping = sessionIDs.flatMap((sessionID) => {
      const run = runs.get(sessionID)
      run?.abort.abort()
      return run ? [run.done] : []
    })
    await Promise.allSettled(stopping)
  }

  return {
    get: (sessionID: string) => runs.get(sessionID),
    start,
    /**
     * Finishes a tool call that a stopped process left waiting for this answer, then goes on
     * with the turn, in the background: the caller (a reply) returns once the run is registered.
     */
    resume(call: ToolCallRef, decision: StoredDecision): void {
      const running = runs.get(call.sessionID)
      if (running) running.resumes.push({ ...call, decision })
      else startResumes(call.sessionID, [{ ...call, decision }])
    },
    /** Repairs what a stopped process left in a session this runtime is not running and has not run. */
    async repairIfIdle(sessionID: string): Promise<void> {
      if (runs.has(sessionID) || context.repaired.has(sessionID)) return
      // What another process is running is not left over: only its owner may close it.
      const lease = await deps.coordinator?.claim(sessionID, { wait: false })
      if (deps.coordinator && !lease) return
      context.repaired.add(sessionID)
      try {
        const why = context.storageFailures.get(sessionID)
        await repairSession(deps, sessionID, await deps.asks.storedCalls(sessionID), why)
        context.storageFailures.delete(sessionID)
      } catch (error) {
        context.repaired.delete(sessionID)
        throw error
      } finally {
        await lease?.release().catch(() => undefined)
      }
    },
    /** A prompt another process stored: a run this process owns takes it in at its next step. */
    async takeRemotePrompt(sessionID: string, messageID: string): Promise<void> {
      const run = runs.get(sessionID)
      if (!run?.owned) return
      const message = await deps.storage.getMessage(sessionID, messageID)
      if (message?.info.role === "user" && runs.get(sessionID) === run) run.incoming.push(message)
    },
    stop,
    /** Cancels every run; resolves when they have settled. */
    stopAll: () => stop([...runs.keys()]),
  }
}

export type RunRegistry = ReturnType<typeof createRunRegistry>
