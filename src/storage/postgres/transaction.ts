import type pg from "pg"
import { StorageError } from "../storage-error.js"
import { postgresFault } from "./faults.js"

/**
 * Runs a batch's steps in one transaction on a connection of its own. `committing(xid)` is told
 * the transaction's ID just before COMMIT goes out: if the connection drops before the answer
 * comes back, nobody knows whether the batch landed, and `outcome(xid)` asks the server. When a
 * step fails, the transaction is rolled back and `failed` decides what follows, knowing which
 * step it was (undefined when it was BEGIN, COMMIT, or producing a step).
 *
 * Steps may be produced as they are needed (a long batch is validated and encoded a chunk at a
 * time): while a step that `overlaps` runs on the server, the next one is produced, so the
 * client's work and the server's go on at once. It is awaited before the next goes out.
 */
export async function runTransaction<Step>(
  pool: pg.Pool,
  steps: Iterable<Step>,
  handlers: {
    apply: (client: pg.PoolClient, step: Step) => Promise<void>
    overlaps: (step: Step) => boolean
    failed: (error: unknown, step: Step | undefined) => Promise<void>
    committing: (xid: string) => void
  },
): Promise<void> {
  const { client, done } = await checkout(pool)
  let current: Step | undefined
  let running: { step: Step; applied: Promise<void> } | undefined
  const finish = async () => {
    if (!running) return
    current = running.step
    const { applied } = running
    running = undefined
    await applied
  }
  try {
    const begun = client.query("BEGIN; SELECT txid_current()::text AS xid") as unknown as Promise<
      [unknown, pg.QueryResult<{ xid: string }>]
    >
    // Awaited below; producing the first step may throw before.
    begun.catch(() => undefined)
    const produced = steps[Symbol.iterator]()
    // The first step is produced while BEGIN is on its way.
    let next = produced.next()
    const [, started] = await begun
    for (; !next.done; next = produced.next()) {
      await finish()
      current = next.value
      const applied = handlers.apply(client, next.value)
      if (!handlers.overlaps(next.value)) await applied
      else {
        // Awaited by finish(); a failure meanwhile is not unhandled.
        applied.catch(() => undefined)
        running = { step: next.value, applied }
      }
      current = undefined
    }
    await finish()
    current = undefined
    handlers.committing(started.rows[0]!.xid)
    await client.query("COMMIT")
  } catch (error) {
    // A statement still on its way ends before the rollback, or before the connection goes back.
    await running?.applied.catch(() => undefined)
    if (postgresFault(error)?.reason !== "connection") await client.query("ROLLBACK").catch(() => undefined)
    done(error)
    return handlers.failed(error, current)
  }
  done()
}

/**
 * A connection of the pool, for a few statements in a row. A connection that drops also says
 * so with an 'error' event, which would crash the process without a listener; the failed query
 * carries the same news. The listener stays for the connection's life: the server's FATAL
 * message can come after the connection went back (or was being ended), and the pool listens
 * only while it is idle. `done(error)` gives it back, or ends it when the error says it is broken.
 */
export async function checkout(
  pool: pg.Pool,
): Promise<{ client: pg.PoolClient; done(error?: unknown): void }> {
  const client = await pool.connect()
  guardConnection(client)
  return {
    client,
    done(error?: unknown) {
      const broken = error !== undefined && postgresFault(error)?.reason === "connection"
      client.release(broken ? (error as Error) : undefined)
    },
  }
}

/** Makes a connection's 'error' events harmless, once per connection (see checkout). */
export function guardConnection(client: pg.ClientBase): void {
  if (!client.listeners("error").includes(ignoreConnectionError)) client.on("error", ignoreConnectionError)
}

function ignoreConnectionError(): void {}

/**
 * Whether the transaction `xid`, whose COMMIT was cut off, committed. While its backend is still
 * finishing it, fails with SQLSTATE 08007 (transaction resolution unknown), a connection fault
 * the caller retries; when the server no longer knows (the ID is too old), with a StorageError.
 */
export async function outcome(pool: pg.Pool, xid: string): Promise<"committed" | "aborted"> {
  const { rows } = await pool.query<{ status: string | null }>("SELECT txid_status($1::bigint) AS status", [
    xid,
  ])
  const status = rows[0]?.status
  if (status === "committed" || status === "aborted") return status
  if (status === "in progress")
    throw Object.assign(new Error(`Transaction ${xid} is still being committed or rolled back`), {
      code: "08007",
    })
  throw new StorageError({
    reason: "connection",
    retryable: false,
    code: "08007",
    message:
      `The connection to the PostgreSQL server dropped while transaction ${xid} was committing, ` +
      "and the server no longer knows whether it committed: read the rows back to find out",
  })
}
