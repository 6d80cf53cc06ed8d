import { UnknownError } from "../message/errors.js"
import type { WithParts } from "../message/info.js"
import type { StoredDecision, ToolCallRef } from "../schema/ask.js"
import { isStorageFault } from "../storage/storage-fault.js"
import type { LoopContext } from "./context.js"
import { executeOwnedRun } from "./owned-run.js"
import { createReadRepair } from "./read-repair.js"
import { storageFailedMessage } from "./repair.js"
import { type Resume, type Run, type RunState, takesPrompts } from "./run-state.js"
import { createSessionWork } from "./session-work.js"

type StartOptions = Partial<Pick<RunState, "compact" | "resumes" | "holdForAnswers" | "continueCut">>

/**
 * The sessions this runtime is running: one run per session, which joined prompts share; its
 * status; cancel and stop; answers that resume a stopped process's waiting calls; and the work
 * it does on sessions outside runs (shell commands), which repair on read leaves alone.
 */
export function createRunRegistry(context: LoopContext) {
  const { deps } = context
  const runs = new Map<string, Run>()
  const work = createSessionWork()
  const repairs = createReadRepair(context, (sessionID) => runs.has(sessionID) || work.has(sessionID))

  function start(sessionID: string, options: StartOptions = {}): Run {
    const state: RunState = {
      abort: new AbortController(),
      startedAt: Date.now(),
      incoming: [],
      resumes: [],
      callers: { waiting: 0, aborted: 0 },
      ...options,
    }
    deps.status.set(sessionID, { type: "busy" })
    // A repair on read under way goes first: it would take the run's first writes for leftovers.
    const repairing = repairs.settled(sessionID)
    const execute = () => executeOwnedRun(context, sessionID, state)
    const done = (repairing ? repairing.then(execute) : execute())
      .then(
        async (answer) => {
          // The turn's diff is a view of what the snapshots recorded: it can be had again from
          // session.diff, so a failure to compute it does not fail the turn.
          const userID = answer.info.role === "assistant" ? answer.info.parentID : undefined
          await deps.files.summarize(sessionID, userID).catch(() => undefined)
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
    const run = Object.assign(state, { done })
    runs.set(sessionID, run)
    return run
  }

  /**
   * A run that storage failed under stops its tools and leaves what it could not write open: the
   * next read or run of the session closes that (see repair.ts), once storage takes writes again.
   */
  function storageFailed(sessionID: string, state: RunState) {
    return (error: unknown): never => {
      // A prompt stored from now on is not this run's: it would only get the error.
      state.closed = true
      if (isStorageFault(error)) {
        state.abort.abort(error)
        context.repaired.delete(sessionID)
        context.storageFailures.set(sessionID, storageFailedMessage(error))
      }
      throw error
    }
  }

  function startResumes(sessionID: string, resumes: Resume[]): void {
    start(sessionID, { resumes }).done.catch((error: unknown) => {
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
     * The run that answers a prompt whose message was just stored: the session's run while it
     * still takes prompts in (it reads the message at its next step), else a new one; undefined
     * while the session's run is ending (its caller waits for it to end, then asks again).
     */
    join(sessionID: string, message: WithParts): Run | undefined {
      const running = runs.get(sessionID)
      if (!running) return start(sessionID)
      if (!takesPrompts(running)) return undefined
      running.incoming.push(message)
      return running
    },
    /**
     * Finishes a tool call that a stopped process left waiting for this answer, then goes on
     * with the turn, in the background: the caller (a reply) returns once the run is registered.
     */
    resume(call: ToolCallRef, decision: StoredDecision): void {
      const running = runs.get(call.sessionID)
      if (running) running.resumes.push({ ...call, decision })
      else startResumes(call.sessionID, [{ ...call, decision }])
    },
    /** Repairs what a stopped process left in a session this runtime is not working on and has not run. */
    repairIfIdle: repairs.ifIdle,
    /** Forgets what this runtime knew of removed sessions. */
    forget: repairs.forget,
    /**
     * Records work on the session outside a run (a user's shell command), until `end`: reads of
     * the session leave it alone, and a cancel waits for it. `ready` resolves once what a stopped
     * process left in the session is closed: the work writes only then.
     */
    enterWork(sessionID: string): { ready: Promise<void>; end(): void } {
      const end = work.enter(sessionID)
      return { ready: repairs.beforeWork(sessionID), end }
    },
    /**
     * Resolves once the session's cancelled runs (a prompt that waited for one to end may start
     * another, cancelled too) and its work outside runs have ended.
     */
    async settled(sessionID: string): Promise<void> {
      const ended = async () => {
        for (let run = runs.get(sessionID); run; run = runs.get(sessionID)) {
          await run.done.catch(() => undefined)
          const next = runs.get(sessionID)
          if (next && !next.abort.signal.aborted) return
        }
      }
      await Promise.all([ended(), work.settled(sessionID)])
    },
    /** A prompt another process stored: a run this process owns takes it in at its next step. */
    async takeRemotePrompt(sessionID: string, messageID: string): Promise<void> {
      const run = runs.get(sessionID)
      if (!run?.owned) return
      const message = await deps.storage.getMessage(sessionID, messageID)
      // A run that is ending leaves it to the run of the process that stored it.
      if (message?.info.role === "user" && runs.get(sessionID) === run && takesPrompts(run))
        run.incoming.push(message)
    },
    stop,
    /** Cancels every run; resolves when they have settled. */
    stopAll: () => stop([...runs.keys()]),
  }
}

export type RunRegistry = ReturnType<typeof createRunRegistry>
