import type pg from "pg"
import type { StorageWrite } from "../port.js"
import { StorageError } from "../storage-error.js"
import { postgresFault } from "./faults.js"

type Apply = (client: pg.PoolClient, write: StorageWrite, index: number) => Promise<void>
/** Turns a failure into the error to throw, knowing which write (if any) it happened on. */
type Explain = (error: unknown, write: StorageWrite | undefined) => Promise<never>

/**
 * Runs a batch in one transaction on a connection of its own. `committing(xid)` is told the
 * transaction's ID just before COMMIT goes out: if the connection drops before the answer comes
 * back, nobody knows whether the batch landed, and `outcome(xid)` asks the server.
 */
export async function runTransaction(
  pool: pg.Pool,
  writes: readonly StorageWrite[],
  steps: { apply: Apply; explain: Explain; committing: (xid: string) => void },
): Promise<void> {
  const { client, done } = await checkout(pool)
  let failed: StorageWrite | undefined
  try {
    const [, started] = (await client.query("BEGIN; SELECT txid_current()::text AS xid")) as unknown as [
      unknown,
      pg.QueryResult<{ xid: string }>,
    ]
    for (const [index, write] of writes.entries()) {
      failed = write
      await steps.apply(client, write, index)
    }
    failed = undefined
    steps.committing(started.rows[0]!.xid)
    await client.query("COMMIT")
  } catch (error) {
    if (postgresFault(error)?.reason !== "connection") await client.query("ROLLBACK").catch(() => undefined)
    done(error)
    return steps.explain(error, failed)
  }
  done()
}

/**
 * A connection of the pool, for a few statements in a row. A connection that drops while
 * checked out also says so with an 'error' event, which would crash the process without a
 * listener (the failed query carries the same news). `done(error)` gives it back, or ends it
 * when the error says it is broken.
 */
export async function checkout(
  pool: pg.Pool,
): Promise<{ client: pg.PoolClient; done(error?: unknown): void }> {
  const client = await pool.connect()
  const ignore = () => undefined
  client.on("error", ignore)
  return {
    client,
    done(error?: unknown) {
      client.off("error", ignore)
      const broken = error !== undefined && postgresFault(error)?.reason === "connection"
      client.release(broken ? (error as Error) : undefined)
    },
  }
}

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
