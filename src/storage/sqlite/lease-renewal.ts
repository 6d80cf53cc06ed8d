import type { CoordinatorPolicy } from "./coordinator-options.js"
import { type Attempt, renewLeases } from "./lease-rows.js"

/** A lease this process holds: its claim's token, the expiry last written, and its loss. */
export type Held = { token: string; expiresAt: number; lost: AbortController; deadline?: NodeJS.Timeout }

/**
 * Keeps the leases in `held` alive: one timer renews them all every `renewMs` in one write. A
 * lease that was not renewed in time is lost (`lose`) a tenth of `leaseMs` before its row
 * expires, since from then on another process may take it; one that another process took after
 * it expired is lost when the renewal finds so.
 */
export function createRenewal(options: {
  attempt: Attempt
  policy: CoordinatorPolicy
  held: Map<string, Held>
  lose(sessionID: string, entry: Held): void
}) {
  const { attempt, policy, held, lose } = options
  let timer: NodeJS.Timeout | undefined
  let closed = false

  function arm(sessionID: string, entry: Held): void {
    clearTimeout(entry.deadline)
    const at = entry.expiresAt - policy.leaseMs / 10
    entry.deadline = setTimeout(() => lose(sessionID, entry), Math.max(0, at - Date.now()))
    entry.deadline.unref()
  }

  function schedule(): void {
    if (timer || closed || held.size === 0) return
    timer = setTimeout(() => void renew(), policy.renewMs)
    // A lease never keeps the process alive: the run holding it does, while it lasts.
    timer.unref()
  }

  async function renew(): Promise<void> {
    try {
      const renewed = await attempt((db) => {
        // The leases held when the write runs (it may run again after a wait for the file).
        const leases = [...held].map(([sessionID, entry]) => ({ sessionID, entry, token: entry.token }))
        return { leases, ...renewLeases(db, leases, policy.leaseMs) }
      })
      for (const { sessionID, entry } of renewed.leases) {
        if (renewed.gone.includes(sessionID)) lose(sessionID, entry)
        else if (held.get(sessionID) === entry) {
          entry.expiresAt = renewed.expiresAt
          arm(sessionID, entry)
        }
      }
    } catch {
      // Left to the deadlines: a lease that is not renewed in time is lost before it expires.
    } finally {
      timer = undefined
      schedule()
    }
  }

  return {
    /** Starts watching a lease just taken. */
    add(sessionID: string, entry: Held): void {
      arm(sessionID, entry)
      schedule()
    },
    close(): void {
      closed = true
      clearTimeout(timer)
    },
  }
}
