import type { CoordinatorMessage } from "../../coordination/port.js"
import type { Connection } from "./connection.js"
import { SQL } from "./statements.js"

// The rows of migration 3 as SqliteCoordinator reads and writes them; each call runs whole,
// synchronously, on the storage's connection.

/**
 * Runs `body` on the storage's connection: at once, and again after an asynchronous wait while
 * it finds the file locked (SqliteStorage's retry), so nothing here blocks the event loop.
 */
export type Attempt = <T>(body: (db: Connection) => T) => T | Promise<T>

type LeaseRow = { owner: string; token: string; expires_at: number | bigint }
export type MessageRow = { id: number | bigint; origin: string; payload: string; created: number | bigint }

/** Who claims: the `owner` it writes, and how it tells that another owner's process is gone. */
export type Claimant = { owner: string; isGone(other: string): boolean }

/**
 * Whether someone other than the claimant holds the session's lease at `now`: a lease that has
 * not expired, of an owner whose process is not provably gone (see lease-owner.ts). A plain
 * read, so that a claim that would fail (and every round of a waiting one) takes no write lock.
 */
export function heldByOther(db: Connection, sessionID: string, claimant: Claimant, now: number): boolean {
  const row = db.get<LeaseRow>(SQL.getLease, sessionID)
  return (
    row !== undefined &&
    row.owner !== claimant.owner &&
    Number(row.expires_at) > now &&
    !claimant.isGone(row.owner)
  )
}

/**
 * Takes the session's lease in a write transaction when no one holds it, it expired, its
 * owner's process is gone, or it is the claimant's already (a claim of this process whose
 * release did not reach the file). Returns the expiry written, or undefined when another owner
 * holds it.
 */
export function takeLease(
  db: Connection,
  lease: { sessionID: string; claimant: Claimant; token: string; leaseMs: number },
): number | undefined {
  return db.transaction(SQL.beginWrite, () => {
    const now = Date.now()
    if (heldByOther(db, lease.sessionID, lease.claimant, now)) return undefined
    const expiresAt = now + lease.leaseMs
    db.run(SQL.putLease, lease.sessionID, lease.claimant.owner, lease.token, expiresAt)
    return expiresAt
  })
}

/**
 * Moves the expiry of these leases to `now + leaseMs`, in one write transaction. A lease whose
 * row no longer carries its token was taken by another process after it expired: those come
 * back in `gone`. A lease past its expiry that no one took is still this claim's, and renewed.
 */
export function renewLeases(
  db: Connection,
  leases: readonly { sessionID: string; token: string }[],
  leaseMs: number,
): { expiresAt: number; gone: string[] } {
  return db.transaction(SQL.beginWrite, () => {
    const expiresAt = Date.now() + leaseMs
    const gone: string[] = []
    for (const { sessionID, token } of leases) {
      if (db.get<LeaseRow>(SQL.getLease, sessionID)?.token === token)
        db.run(SQL.renewLease, expiresAt, sessionID, token)
      else gone.push(sessionID)
    }
    return { expiresAt, gone }
  })
}

/** Deletes the lease row of this claim only: a newer claim of the session keeps its own. */
export function removeLease(db: Connection, sessionID: string, token: string): void {
  db.run(SQL.removeLease, sessionID, token)
}

/** Stores one message for the other processes and drops the ones older than `keepMs`. */
export function putMessage(
  db: Connection,
  origin: string,
  message: CoordinatorMessage,
  keepMs: number,
): void {
  db.transaction(SQL.beginWrite, () => {
    const now = Date.now()
    db.run(SQL.putCoordinatorMessage, origin, JSON.stringify(message), now)
    db.run(SQL.trimCoordinatorMessages, now - keepMs)
  })
}

/** The ID of the newest message: a new reader starts after it. */
export function lastMessageID(db: Connection): number {
  return Number(db.get<{ id: number | bigint | null }>(SQL.lastCoordinatorMessage)?.id ?? 0)
}

/** Messages stored after `id`, oldest first, at most `limit`. */
export function messagesAfter(db: Connection, id: number, limit: number): MessageRow[] {
  return db.all<MessageRow>(SQL.coordinatorMessagesAfter, id, limit)
}
