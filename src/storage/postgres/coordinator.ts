import { randomUUID } from "node:crypto"
import type pg from "pg"
import type { Coordinator, CoordinatorMessage, Lease } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"
import { createListener, type Listener } from "./listener.js"
import { isSessionLocked, lockSession } from "./session-lock.js"

/** NOTIFY payloads are capped at 8000 bytes; longer messages travel through a table. */
const NOTIFY_LIMIT = 7_500
/** How long a long message stays in its table for the other processes to fetch. */
const KEEP_MESSAGES = "10 minutes"

type Envelope = { origin: string; message?: CoordinatorMessage; ref?: string }

/**
 * The coordinator of processes sharing one PostgreSQL database (and schema): ownership of a
 * session is an advisory lock (see session-lock.ts); messages go out with NOTIFY on a channel
 * named after the schema, and messages too long for NOTIFY are stored in
 * `<schema>.coordinator_messages` and fetched by reference. Connections are opened when first needed: a runtime that never
 * runs a session opens none but the listener.
 */
export class PostgresCoordinator implements Coordinator {
  readonly #origin = randomUUID()
  readonly #pool: pg.Pool
  readonly #config: pg.ClientConfig
  readonly #schema: string
  readonly #channel: string
  readonly #ready: () => Promise<void>
  readonly #sending = createSerialQueue()
  readonly #receiving = createSerialQueue()
  readonly #listeners = new Set<(message: CoordinatorMessage) => void>()
  readonly #leases = new Set<Lease>()
  #listener: Listener | undefined
  #tableReady: Promise<void> | undefined
  #closed = false

  /**
   * `pool` carries the sends and lookups; `config` opens the connections that hold leases and
   * listen; `ready` resolves once the schema exists (the storage's migrations).
   */
  constructor(options: {
    pool: pg.Pool
    config: pg.ClientConfig
    schema: string
    ready: () => Promise<void>
  }) {
    this.#pool = options.pool
    this.#config = options.config
    this.#schema = options.schema
    this.#channel = `agentloop_${options.schema}`.slice(0, 63)
    this.#ready = options.ready
  }

  async claim(
    sessionID: string,
    options: { wait: boolean; signal?: AbortSignal },
  ): Promise<Lease | undefined> {
    if (this.#closed) return undefined
    await this.#ready()
    if (!options.wait && (await isSessionLocked(this.#pool, this.#schema, sessionID))) return undefined
    const lease = await lockSession(this.#config, this.#schema, sessionID, options)
    if (!lease) return undefined
    this.#leases.add(lease)
    return {
      lost: lease.lost,
      release: async () => {
        this.#leases.delete(lease)
        await lease.release()
      },
    }
  }

  publish(message: CoordinatorMessage): Promise<void> {
    if (this.#closed) return Promise.resolve()
    return this.#sending.run(async () => {
      await this.#ready()
      const text = JSON.stringify({ origin: this.#origin, message } satisfies Envelope)
      if (Buffer.byteLength(text) <= NOTIFY_LIMIT) {
        await this.#pool.query("SELECT pg_notify($1, $2)", [this.#channel, text])
        return
      }
      this.#tableReady ??= this.#pool
        .query(
          `CREATE TABLE IF NOT EXISTS ${this.#table()} (
             id bigserial PRIMARY KEY, payload text NOT NULL, created timestamptz NOT NULL DEFAULT now())`,
        )
        .then(() => undefined)
      await this.#tableReady
      await this.#pool.query(
        `WITH stored AS (INSERT INTO ${this.#table()} (payload) VALUES ($2) RETURNING id)
         SELECT pg_notify($1, json_build_object('origin', $3::text, 'ref', id::text)::text) FROM stored`,
        [this.#channel, JSON.stringify(message), this.#origin],
      )
      await this.#pool.query(
        `DELETE FROM ${this.#table()} WHERE created < now() - interval '${KEEP_MESSAGES}'`,
      )
    })
  }

  subscribe(listener: (message: CoordinatorMessage) => void): () => void {
    this.#listeners.add(listener)
    if (!this.#listener && !this.#closed)
      this.#listener = createListener(this.#config, this.#channel, this.#ready, (payload) =>
        this.#receive(payload),
      )
    return () => this.#listeners.delete(listener)
  }

  /**
   * Resolves once this process hears the others (after the first `subscribe`, which a runtime
   * makes when it is created): what they publish from then on arrives.
   */
  async listening(): Promise<void> {
    await this.#listener?.listening
  }

  /** Sends what is queued, then ends the listener and every lease; called by PostgresStorage.close(). */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    // What was published before close still goes out (a run's last events, say).
    await this.#sending.run(async () => {})
    await this.#listener?.close()
    await Promise.all([...this.#leases].map((lease) => lease.release()))
    this.#leases.clear()
  }

  #receive(payload: string): void {
    // In arrival order, also when a long message must be fetched first. A payload that is not
    // ours (another program notifying on the channel) or a message already deleted is skipped.
    void this.#receiving
      .run(async () => {
        const envelope = JSON.parse(payload) as Envelope
        if (envelope.origin === this.#origin) return
        const message = envelope.message ?? (await this.#fetch(envelope.ref))
        if (message) for (const listener of this.#listeners) listener(message)
      })
      .catch(() => undefined)
  }

  async #fetch(ref: string | undefined): Promise<CoordinatorMessage | undefined> {
    if (ref === undefined) return undefined
    const { rows } = await this.#pool.query<{ payload: string }>(
      `SELECT payload FROM ${this.#table()} WHERE id = $1`,
      [ref],
    )
    return rows[0] ? (JSON.parse(rows[0].payload) as CoordinatorMessage) : undefined
  }

  #table(): string {
    return `"${this.#schema}".coordinator_messages`
  }
}
