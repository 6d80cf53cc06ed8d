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
