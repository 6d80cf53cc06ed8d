/**
 * The claims of this process that wait for a session's lease, so that they look again at once
 * when this process lets the session go (another process's release is seen by their next look).
 */
export function createSessionWaits() {
  const waiting = new Map<string, Set<() => void>>()

  return {
    /** Resolves after about `ms`, when the session is let go here, when `signal` aborts, or on `wakeAll`. */
    pause(sessionID: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
      return new Promise((resolve) => {
        const wakes = waiting.get(sessionID) ?? new Set<() => void>()
        waiting.set(sessionID, wakes)
        const wake = () => {
          clearTimeout(timer)
          signal?.removeEventListener("abort", wake)
          wakes.delete(wake)
          if (wakes.size === 0 && waiting.get(sessionID) === wakes) waiting.delete(sessionID)
          resolve()
        }
        // Up to a quarter less, so that processes waiting for one lease do not look in step.
        const timer = setTimeout(wake, Math.round(ms * (1 - Math.random() / 4)))
        signal?.addEventListener("abort", wake, { once: true })
        wakes.add(wake)
      })
    },
    wake(sessionID: string): void {
      for (const wake of [...(waiting.get(sessionID) ?? [])]) wake()
    },
    wakeAll(): void {
      for (const wakes of [...waiting.values()]) for (const wake of [...wakes]) wake()
    },
  }
}
