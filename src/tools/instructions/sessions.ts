/** What the instruction files keep of one session: what its turn's system prompt holds, and the nested files claimed in the turn. */
export type SessionInstructions = {
  /** The files whose text (whole or cut) the system prompt of the session's latest turn holds. */
  system: ReadonlySet<string>
  /** The turn `claimed` belongs to. */
  turn: string | undefined
  /** The nested files attached to a read in `turn`. */
  claimed: Set<string>
}

// A host may run many sessions through one runtime: keep the recent ones only. A session pushed
// out merely gets a nested file attached again.
const KEPT_SESSIONS = 256

/** Per-session memory for `instructionFiles`, holding the most recently used sessions only. */
export function createSessionInstructions() {
  const sessions = new Map<string, SessionInstructions>()
  const of = (sessionID: string): SessionInstructions => {
    const state = sessions.get(sessionID) ?? {
      system: new Set<string>(),
      turn: undefined,
      claimed: new Set(),
    }
    sessions.delete(sessionID)
    sessions.set(sessionID, state)
    if (sessions.size > KEPT_SESSIONS) sessions.delete(sessions.keys().next().value!)
    return state
  }
  return {
    /** The session's memory (made empty the first time), marked as recently used. */
    of,
    /**
     * Claims `file` for the session's turn `turn`: true the first time in that turn, unless the
     * system prompt holds it. A new turn forgets the previous turn's claims.
     */
    claim(sessionID: string, turn: string, file: string): boolean {
      const state = of(sessionID)
      if (state.turn !== turn) {
        state.turn = turn
        state.claimed = new Set()
      }
      if (state.system.has(file) || state.claimed.has(file)) return false
      state.claimed.add(file)
      return true
    },
  }
}

/** See `createSessionInstructions`. */
export type SessionMemory = ReturnType<typeof createSessionInstructions>
