import type pg from "pg"
import type { CoordinatorMessage } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"

/** NOTIFY payloads are capped at 8000 bytes; longer batches travel through a table. */
const NOTIFY_LIMIT = 7_500
/** How long a long batch stays in its table for the other processes to fetch. */
const KEEP_MESSAGES = "10 minutes"

/** What one NOTIFY carries: a batch of messages, or a reference to a batch stored in the table. */
export type Envelope = { origin: string; messages?: CoordinatorMessage[]; ref?: string }

/**
 * Sends a process's messages in the order they were published, batching those published while
 * the previous batch was on its way into one NOTIFY (a step publishes a dozen events in a few
 * milliseconds; one round trip each would make the sender the bottleneck). A batch too long for
 * NOTIFY is stored in `table` and sent by reference.
 */
export function createOutbox(options: {
  pool: pg.Pool
  channel: string
  origin: string
  table: string
  ready: () => Promise<void>
}) {
  const { pool, channel, origin, table } = options
  const sending = createSerialQueue()
  let batch: { messages: CoordinatorMessage[]; sent: Promise<void> } | undefined
  let tableReady: Promise<void> | undefined

  async function send(messages: CoordinatorMessage[]): Promise<void> {
    await options.ready()
    const text = JSON.stringify({ origin, messages } satisfies Envelope)
    if (Buffer.byteLength(text) <= NOTIFY_LIMIT) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, text])
      return
    }
    tableReady ??= pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           id bigserial PRIMARY KEY, payload text NOT NULL, created timestamptz NOT NULL DEFAULT now())`,
      )
      .then(() => undefined)
    await tableReady
    await pool.query(
      `WITH stored AS (INSERT INTO ${table} (payload) VALUES ($2) RETURNING id)
       SELECT pg_notify($1, json_build_object('origin', $3::text, 'ref', id::text)::text) FROM stored`,
      [channel, JSON.stringify(messages), origin],
    )
    await pool.query(`DELETE FROM ${table} WHERE created < now() - interval '${KEEP_MESSAGES}'`)
  }

  return {
    /** Resolves once the batch holding `message` is sent. */
    publish(message: CoordinatorMessage): Promise<void> {
      if (!batch) {
        const next: { messages: CoordinatorMessage[]; sent: Promise<void> } = {
          messages: [],
          sent: Promise.resolve(),
        }
        next.sent = sending.run(() => {
          // From here on, new messages go into the next batch.
          if (batch === next) batch = undefined
          return send(next.messages)
        })
        batch = next
      }
      batch.messages.push(message)
      return batch.sent
    },
    /** Resolves when everything published so far is sent. */
    drain: () => sending.run(async () => {}),
    /** A batch stored by reference. */
    async fetch(ref: string): Promise<CoordinatorMessage[]> {
      const { rows } = await pool.query<{ payload: string }>(`SELECT payload FROM ${table} WHERE id = $1`, [
        ref,
      ])
      return rows[0] ? (JSON.parse(rows[0].payload) as CoordinatorMessage[]) : []
    },
  }
}
