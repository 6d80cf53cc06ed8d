import pg from "pg"
import type { Lease } from "../../coordination/port.js"

/** Lock connections kept open between runs, so a prompt does not pay for a new connection. */
const MAX_IDLE = 4

/**
 * Sessions' ownership as PostgreSQL session-level advisory locks, each held on a connection of
 * its own for as long as the run lasts. When the owning process dies its connections close and
 * the server releases the locks at once; when the machine vanishes, TCP keepalives (set on each
 * connection) end them within about half a minute. A released lock's connection is unlocked and
 * kept for the next claim (up to MAX_IDLE); a connection whose unlock fails is closed, which
 * releases whatever it held.
 */
export function createSessionLocks(config: pg.ClientConfig, namespace: string) {
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
    async lock(
      sessionID: string,
      options: { wait: boolean; signal?: AbortSignal | undefined },
    ): Promise<Lease | undefined> {
      if (options.signal?.aborted || closed) return undefined
      const client = await connect()
      // Ending the connection is how a wait for the lock stops.
      const abort = () => void discard(client)
      options.signal?.addEventListener("abort", abort, { once: true })
      let held: boolean
      try {
        held = await take(client, namespace, sessionID, options.wait)
      } catch (error) {
        await discard(client)
        if (options.signal?.aborted) return undefined
        throw error
      } finally {
        options.signal?.removeEventListener("abort", abort)
      }
      if (held && options.signal?.aborted) await unlock(client, sessionID)
      else if (!held) await keep(client)
      return held && !options.signal?.aborted ? holding(client, sessionID) : undefined
    },
    async close(): Promise<void> {
      closed = true
      idle.length = 0
      await Promise.all([...open].map(discard))
    },
  }

  function holding(client: pg.Client, sessionID: string): Lease {
    const lost = new AbortController()
    let released = false
    const onLoss = () => {
      if (!released) lost.abort()
    }
    client.on("error", onLoss)
    client.on("end", onLoss)
    return {
      lost: lost.signal,
      async release() {
        if (released) return
        released = true
        client.off("error", onLoss)
        client.off("end", onLoss)
        await unlock(client, sessionID)
      },
    }
  }
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

const KEEPALIVES =
  "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"
