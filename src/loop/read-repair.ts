import type { LoopContext } from "./context.js"
import { repairSession } from "./repair.js"

/**
 * Repair before a read: the first read of a session this runtime is not working on closes what a
 * stopped process left open (see repair.ts). `busyHere` says whether this runtime runs a turn of
 * the session or a command in it: those are not left over, and what they write is theirs to
 * close. A repair under way is waited for by what starts in the session (`settled`), so that it
 * never reads a running turn's or command's first writes as leftovers.
 */
export function createReadRepair(context: LoopContext, busyHere: (sessionID: string) => boolean) {
  const { deps } = context
  const underWay = new Map<string, Promise<void>>()

  async function repair(sessionID: string): Promise<void> {
    // What another process is running is not left over: only its owner may close it.
    const lease = await deps.coordinator?.claim(sessionID, { wait: false })
    if (deps.coordinator && !lease) return
    context.repaired.set(sessionID, true)
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
  }

  /** One repair of the session at a time; callers that come meanwhile share it. */
  function once(sessionID: string): Promise<void> {
    const current = underWay.get(sessionID)
    if (current) return current
    const done = repair(sessionID).finally(() => {
      if (underWay.get(sessionID) === done) underWay.delete(sessionID)
    })
    underWay.set(sessionID, done)
    return done
  }

  return {
    /** Repairs the session unless this runtime works on it or repaired it already. */
    ifIdle(sessionID: string): Promise<void> {
      if (busyHere(sessionID)) return Promise.resolve()
      // A reader that comes while the repair is under way reads once it is done.
      if (context.repaired.has(sessionID)) return underWay.get(sessionID) ?? Promise.resolve()
      return once(sessionID)
    },
    /**
     * For work about to start in the session outside a run (a shell command), which writes only
     * once this resolves: repairs what a stopped process left, as a run does before its turn.
     */
    beforeWork(sessionID: string): Promise<void> {
      if (context.repaired.has(sessionID)) return underWay.get(sessionID) ?? Promise.resolve()
      return once(sessionID)
    },
    /** The repair under way in the session, settled either way; undefined when none is. */
    settled: (sessionID: string): Promise<void> | undefined =>
      underWay.get(sessionID)?.catch(() => undefined),
    /** Forgets sessions that were removed: they will never be read again. */
    forget(sessionIDs: readonly string[]): void {
      for (const sessionID of sessionIDs) {
        context.repaired.delete(sessionID)
        context.storageFailures.delete(sessionID)
      }
    },
  }
}

export type ReadRepair = ReturnType<typeof createReadRepair>

/**
 * Work this runtime does on a session outside a run (a user's shell command): what reads of the
 * session must not repair as left over, and what a cancel waits for. A session may have several.
 */
export function createSessionWork() {
  const sessions = new Map<string, { count: number; ended: Promise<void>; end(): void }>()

  return {
    /** Records one piece of work on the session; call the function returned when it is done. */
    enter(sessionID: string): () => void {
      let entry = sessions.get(sessionID)
      if (!entry) {
        let end!: () => void
        const ended = new Promise<void>((resolve) => {
          end = resolve
        })
        entry = { count: 0, ended, end }
        sessions.set(sessionID, entry)
      }
      entry.count++
      const held = entry
      let left = false
      return () => {
        if (left) return
        left = true
        held.count--
        if (held.count > 0) return
        if (sessions.get(sessionID) === held) sessions.delete(sessionID)
        held.end()
      }
    },
    has: (sessionID: string): boolean => sessions.has(sessionID),
    /** Resolves once no work of the session is under way (at once when none is). */
    settled: (sessionID: string): Promise<void> => sessions.get(sessionID)?.ended ?? Promise.resolve(),
  }
}

export type SessionWork = ReturnType<typeof createSessionWork>
