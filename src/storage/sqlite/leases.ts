import { randomUUID } from "node:crypto"
import type { Lease } from "../../coordination/port.js"
import type { CoordinatorPolicy } from "./coordinator-options.js"
import { createRenewal, type Held } from "./lease-renewal.js"
import { type Attempt, type Claimant, heldByOther, removeLease, takeLease } from "./lease-rows.js"
import { createSessionWaits } from "./session-waits.js"

/** The first pause of a claim that waits; pauses double up to the policy's pollMs. */
const FIRST_PAUSE_MS = 5

/**
 * Sessions' ownership as rows of the `lease` table with an expiry (see lease-rows.ts), renewed
 * while held (lease-renewal.ts). A process that dies stops renewing, and its leases are free
 * once they expire, or at once for a claim on the same machine that sees its process is gone
 * (lease-owner.ts). Within this process a session has one holder at a time too, as with
 * PostgreSQL's lock connections.
 */
export function createLeases(options: { attempt: Attempt; policy: CoordinatorPolicy; claimant: Claimant }) {
  const { attempt, policy, claimant } = options
  const held = new Map<string, Held>()
  const waits = createSessionWaits()
  const renewal = createRenewal({ attempt, policy, held, lose })
  let closed = false
  const holding: Holding = { held, renewal, attempt, forget, closed: () => closed }

  async function claim(
    sessionID: string,
    { wait, signal }: { wait: boolean; signal?: AbortSignal | undefined },
  ): Promise<Lease | undefined> {
    for (let round = 0; ; round++) {
      if (closed || signal?.aborted) return undefined
      const lease = await take(sessionID)
      if (lease && !closed && !signal?.aborted) return lease
      if (lease) {
        await lease.release()
        return undefined
      }
      if (!wait) return undefined
      await waits.pause(sessionID, Math.min(policy.pollMs, FIRST_PAUSE_MS * 2 ** Math.min(round, 20)), signal)
    }
  }

  /** One look at the lease: taken, or undefined while this process or another holds it. */
  async function take(sessionID: string): Promise<Lease | undefined> {
    const token = randomUUID()
    return attempt((db) => {
      // Looked at in the same synchronous run as the write: two claims here never both take it.
      // The plain read first: a lease held elsewhere costs no write lock.
      if (closed || held.has(sessionID) || heldByOther(db, sessionID, claimant, Date.now())) return undefined
      const expiresAt = takeLease(db, { sessionID, claimant, token, leaseMs: policy.leaseMs })
      return expiresAt === undefined
        ? undefined
        : hold(holding, sessionID, { token, expiresAt, lost: new AbortController() })
    })
  }

  /** Ends this holding (released or lost); claims of this process waiting for it look again. */
  function forget(sessionID: string, entry: Held): void {
    if (held.get(sessionID) !== entry) return
    held.delete(sessionID)
    clearTimeout(entry.deadline)
    waits.wake(sessionID)
  }

  function lose(sessionID: string, entry: Held): void {
    if (held.get(sessionID) !== entry) return
    forget(sessionID, entry)
    entry.lost.abort()
  }

  return {
    claim,
    /**
     * Ends every wait and holding: waiting claims resolve undefined, held leases are lost, and
     * their rows are deleted if the file lets us now (else they expire). Synchronous, so that it
     * is done before the connection closes.
     */
    close(): void {
      if (closed) return
      closed = true
      renewal.close()
      waits.wakeAll()
      const leases = [...held]
      for (const [sessionID, entry] of leases) lose(sessionID, entry)
      removeRows(attempt, leases)
    },
  }
}

/** What a held lease needs of its Leases. */
type Holding = {
  held: Map<string, Held>
  renewal: ReturnType<typeof createRenewal>
  attempt: Attempt
  /** Ends a holding (see createLeases). */
  forget: (sessionID: string, entry: Held) => void
  closed: () => boolean
}

/** A lease taken: renewed until released or lost. */
function hold(holding: Holding, sessionID: string, entry: Held): Lease {
  holding.held.set(sessionID, entry)
  holding.renewal.add(sessionID, entry)
  let released = false
  return {
    lost: entry.lost.signal,
    async release() {
      if (released) return
      released = true
      holding.forget(sessionID, entry)
      if (holding.closed()) return
      // A row left behind (the file stayed locked) expires by itself, or is this process's
      // to take again at once.
      await Promise.resolve()
        .then(() => holding.attempt((db) => removeLease(db, sessionID, entry.token)))
        .catch(() => undefined)
    },
  }
}

/** Deletes the rows of these leases if the file lets us now, synchronously; else they expire. */
function removeRows(attempt: Attempt, leases: readonly [string, Held][]): void {
  try {
    const removed = attempt((db) => {
      for (const [sessionID, entry] of leases) removeLease(db, sessionID, entry.token)
    })
    if (removed instanceof Promise) removed.catch(() => undefined)
  } catch {
    // The rows expire.
  }
}

export type Leases = ReturnType<typeof createLeases>
