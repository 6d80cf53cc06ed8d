import pg from "pg"
import type { Lease } from "../../coordination/port.js"

/**
 * A session's ownership as a PostgreSQL session-level advisory lock, held on a connection of its
 * own for as long as the run lasts. When the owning process dies its connection closes and the
 * server releases the lock at once; when the machine vanishes, TCP keepalives (the settings
 * below) end the connection within about half a minute.
 */
export async function lockSession(
  config: pg.ClientConfig,
  namespace: string,
  sessionID: string,
  options: { wait: boolean; signal?: AbortSignal | undefined },
): Promise<Lease | undefined> {
  if (options.signal?.aborted) return undefined
  const client = new pg.Client({ ...config, keepAlive: true })
  const lost = new AbortController()
  let released = false
  // Errors of a connection that is going away are the lease's loss, not the process's crash.
  client.on("error", () => lost.abort())
  client.on("end", () => {
    if (!released) lost.abort()
  })
  const abort = () => void client.end().catch(() => undefined)
  options.signal?.addEventListener("abort", abort, { once: true })
  try {
    await client.connect()
    await client.query(KEEPALIVES)
    const held = await take(client, namespace, sessionID, options.wait)
    if (!held || options.signal?.aborted) {
      released = true
      await client.end().catch(() => undefined)
      return undefined
    }
  } catch (error) {
    released = true
    await client.end().catch(() => undefined)
    // Cancelled while waiting: ending the connection is how the wait stops.
    if (options.signal?.aborted) return undefined
    throw error
  } finally {
    options.signal?.removeEventListener("abort", abort)
  }
  return {
    lost: lost.signal,
    async release() {
      if (released) return
      released = true
      // Closing the connection releases the lock with it.
      await client.end().catch(() => undefined)
    },
  }
}

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
