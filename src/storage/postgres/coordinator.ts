import { randomUUID } from "node:crypto"
import type pg from "pg"
import type { Coordinator, CoordinatorMessage, Lease } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"
import { createListener, type Listener } from "./listener.js"
import { createOutbox, type Envelope } from "./outbox.js"
import { createSessionLocks, isSessionLocked, type SessionLocks } from "./session-lock.js"

/**
 * The coordinator of processes sharing one PostgreSQL database (and schema): ownership of a
 * session is an advisory lock (see session-lock.ts); messages go out in batches with NOTIFY on a
 * channel named after the schema, and batches too long for NOTIFY are stored in
 * `<schema>.coordinator_messages` and fetched by reference (see outbox.ts). Connections are opened when first needed: a runtime that never
 * runs a session opens none but the listener.
 */
export class PostgresCoordinator implements Coordinator {
  readonly #origin = randomUUID()
  readonly #pool: pg.Pool
  readonly #config: pg.ClientConfig
  readonly #schema: string
  readonly #channel: string
  readonly #ready: () => Promise<void>
  readonly #outbox: ReturnType<typeof createOutbox>
  readonly #receiving = createSerialQueue()
  readonly #listeners = new Set<(message: CoordinatorMessage) => void>()
  readonly #locks: SessionLocks
  #listener: Listener | undefined
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
    this.#locks = createSessionLocks(options.config, options.schema)
    this.#outbox = createOutbox({
      pool: options.pool,
      channel: this.#channel,
      origin: this.#origin,
      table: this.#table(),
      ready: options.ready,
    })
  }

  async claim(
    sessionID: string,
    options: { wait: boolean; signal?: AbortSignal },
  ): Promise<Lease | undefined> {
    if (this.#closed) return undefined
    await this.#ready()
    if (!options.wait && (await isSessionLocked(this.#pool, this.#schema, sessionID))) return undefined
    return this.#locks.lock(sessionID, options)
  }

  publish(message: CoordinatorMessage): Promise<void> {
    if (this.#closed) return Promise.resolve()
    return this.#outbox.publish(message)
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
    await this.#outbox.drain()
    await this.#listener?.close()
    await this.#locks.close()
  }

  #receive(payload: string): void {
    // In arrival order, also when a long batch must be fetched first. A payload that is not
    // ours (another program notifying on the channel) or a batch already deleted is skipped.
    void this.#receiving
      .run(async () => {
        const envelope = JSON.parse(payload) as Envelope
        if (envelope.origin === this.#origin) return
        const messages =
          envelope.messages ?? (envelope.ref === undefined ? [] : await this.#outbox.fetch(envelope.ref))
        for (const message of messages) for (const listener of this.#listeners) listener(message)
      })
      .catch(() => undefined)
  }

  #table(): string {
    return `"${this.#schema}".coordinator_messages`
  }
}
