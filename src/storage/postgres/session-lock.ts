import pg from "pg"
import type { Lease } from "../../coordination/port.js"
import { SessionMovedError } from "../../coordination/session-moved-error.js"
import { StorageError } from "../storage-error.js"

/** Lock connections kept open between runs, so a prompt does not pay for a new connection. */
const MAX_IDLE = 4
// A lock whose connection dropped is taken again as the storage retries a call (DEFAULT_RETRY):
// waits doubling from 50 ms up to 2 s, for about 6 s in all.
const RETAKE_MS = 6_000
const RETAKE_FIRST_DELAY_MS = 50
const RETAKE_MAX_DELAY_MS = 2_000

/**
 * Sessions' ownership as PostgreSQL session-level advisory locks, each held on a connection of
 * its own for as long as the run lasts. When the owning process dies its connections close and
 * the server releases the locks at once; when the machine vanishes, TCP keepalives (set on each
 * connection) end them within about half a minute. A held lock whose connection drops while its
 * process lives is taken again on a new connection (see `holding`). A released lock's connection
 * is unlocked and kept for the next claim (up to MAX_IDLE); a connection whose unlock fails is
 * closed, which releases whatever it held.
 */
export function createSessionLocks(config: pg.ClientConfig, namespace: string) {
  const connections = createLockConnections(config, namespace)
  return {
    async lock(
      sessionID: string,
      options: { wait: boolean; signal?: AbortSignal | undefined },
    ): Promise<Lease | undefined> {
      if (options.signal?.aborted || connections.closed()) return undefined
      const client = await connections.connect()
      // Ending the connection is how a wait for the lock stops.
      const abort = () => void connections.discard(client)
      options.signal?.addEventListener("abort", abort, { once: true })
      let held: boolean
      try {
        held = await connections.take(client, sessionID, options.wait)
      } catch (error) {
        await connections.discard(client)
        if (options.signal?.aborted) return undefined
        throw error
      } finally {
        options.signal?.removeEventListener("abort", abort)
      }
      if (held && options.signal?.aborted) await connections.unlock(client, sessionID)
      else if (!held) await connections.keep(client)
      return held && !options.signal?.aborted ? holding(connections, client, sessionID) : undefined
    },
    close: connections.close,
  }
}

type LockConnections = ReturnType<typeof createLockConnections>

/** The lock connections of one PostgresCoordinator: those open, and those kept idle for the next claim. */
function createLockConnections(config: pg.ClientConfig, namespace: string) {
  const idle: pg.Client[] = []
  const open = new Set<pg.Client>()
  let closed = false

  async function connect(): Promise<pg.Client> {
    const reused = idle.pop()
    if (reused) return reused
    const client = new pg.Client({ ...config, keepAlive: true })
    open.add(client)
    // An idle connection's error must not crash the process; a held one's is its lease's loss.
    client.on("error", () => undefined)
    client.on("end", () => {
      open.delete(client)
      const at = idle.indexOf(client)
      if (at !== -1) idle.splice(at, 1)
    })
    await client.connect()
    await client.query(KEEPALIVES)
    return client
  }

  function discard(client: pg.Client): Promise<void> {
    open.delete(client)
    return client.end().catch(() => undefined)
  }

  /** Keeps a connection that holds no lock for the next claim, or closes it. */
  async function keep(client: pg.Client): Promise<void> {
    if (!closed && open.has(client) && idle.length < MAX_IDLE) idle.push(client)
    else await discard(client)
  }

  async function unlock(client: pg.Client, sessionID: string): Promise<void> {
    const { rows } = await client
      .query<{ done: boolean }>("SELECT pg_advisory_unlock(hashtext($1), hashtext($2)) AS done", [
        namespace,
        sessionID,
      ])
      .catch(() => ({ rows: [{ done: false }] }))
    // A connection that might still hold the lock is closed, which releases it.
    if (rows[0]!.done) await keep(client)
    else await discard(client)
  }

  return {
    connect,
    discard,
    keep,
    unlock,
    take: (client: pg.Client, sessionID: string, wait: boolean) => take(client, namespace, sessionID, wait),
    closed: () => closed,
    async close(): Promise<void> {
      closed = true
      idle.length = 0
      await Promise.all([...open].map(discard))
    },
  }
}

/**
 * A held lock. When its connection drops, the lock is taken again on a new connection, without
 * waiting: if another process holds it by then, the session moved there, and the lease is lost
 * with SessionMovedError. While the server cannot be reached it is tried again, up to
 * RETAKE_MS (as the storage retries its calls), then lost with a StorageError of reason
 * "connection": past that, another process may have taken the session.
 */
function holding(connections: LockConnections, first: pg.Client, sessionID: string): Lease {
  const lost = new AbortController()
  let client: pg.Client | undefined = first
  let released = false
  let retaking: Promise<void> | undefined
  let lastError: unknown
  const over = () => released || connections.closed() || lost.signal.aborted
  const onLoss = () => {
    if (released || retaking || lost.signal.aborted || !client) return
    const dropped = client
    watch(dropped, false)
    client = undefined
    void connections.discard(dropped)
    const deadline = setTimeout(() => lost.abort(unreachable(lastError)), RETAKE_MS)
    const failed = (error: unknown) => {
      lastError = error
    }
    retaking = retake(connections, sessionID, over, failed)
      .then((next) => {
        if (next === "moved") lost.abort(SessionMovedError.of(sessionID))
        else if (next) {
          client = next
          watch(next, true)
        }
      })
      .finally(() => {
        clearTimeout(deadline)
        retaking = undefined
      })
  }
  const watch = (watched: pg.Client, on: boolean) => {
    for (const event of ["error", "end"] as const) {
      if (on) watched.on(event, onLoss)
      else watched.off(event, onLoss)
    }
  }

  watch(first, true)
  return {
    lost: lost.signal,
    async release() {
      if (released) return
      released = true
      // A retake still on its way unlocks what it takes (see `over`), given up or not.
      if (retaking && !lost.signal.aborted) await Promise.race([retaking, aborted(lost.signal)])
      const held = client
      client = undefined
      if (!held) return
      watch(held, false)
      await connections.unlock(held, sessionID)
    },
  }
}

/**
 * Takes a dropped lock again on a new connection, trying again while the server is out of reach
 * (`failed` hears why): the connection that holds it, "moved" when another process holds it,
 * or undefined once `over` (what was taken late is let go).
 */
async function retake(
  connections: LockConnections,
  sessionID: string,
  over: () => boolean,
  failed: (error: unknown) => void,
): Promise<pg.Client | "moved" | undefined> {
  for (let attempt = 0; !over(); attempt++) {
    let next: pg.Client | undefined
    try {
      next = await connections.connect()
      if (!(await connections.take(next, sessionID, false))) {
        await connections.keep(next)
        return "moved"
      }
    } catch (error) {
      failed(error)
      if (next) await connections.discard(next)
      await delay(Math.min(RETAKE_MAX_DELAY_MS, RETAKE_FIRST_DELAY_MS * 2 ** attempt))
      continue
    }
    // Released, closed or given up meanwhile.
    if (!over()) return next
    await connections.unlock(next, sessionID)
    return undefined
  }
  return undefined
}

export type SessionLocks = ReturnType<typeof createSessionLocks>

/** Takes the lock: waiting for it, or only if it is free now. */
async function take(
  client: pg.Client,
  namespace: string,
  sessionID: string,
  wait: boolean,
): Promise<boolean> {
  if (wait) {
    await client.query("SELECT pg_advisory_lock(hashtext($1), hashtext($2))", [namespace, sessionID])
    return true
  }
  const { rows } = await client.query<{ held: boolean }>(
    "SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS held",
    [namespace, sessionID],
  )
  return rows[0]!.held
}

/** Whether some connection holds the session's lock now: a cheap look before opening a connection. */
export async function isSessionLocked(pool: pg.Pool, namespace: string, sessionID: string): Promise<boolean> {
  const { rows } = await pool.query<{ locked: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND classid::int = hashtext($1) AND objid::int = hashtext($2)
     ) AS locked`,
    [namespace, sessionID],
  )
  return rows[0]!.locked
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }))
}

/** Why a lock whose connection dropped was given up: the server stayed out of reach. */
function unreachable(cause: unknown): StorageError {
  const message = "The session's lock connection dropped and no new one could take the lock again in time"
  return new StorageError({ reason: "connection", retryable: true, message }, { cause })
}

const KEEPALIVES =
  "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"
