import { randomUUID } from "node:crypto"
import type pg from "pg"
import type { Coordinator, CoordinatorMessage, Lease } from "../../coordination/port.js"
import { createSerialQueue } from "../../util/serial-queue.js"
import { createListener, type Listener } from "./listener.js"
import { createOutbox, type Envelope, ownPrefix } from "./outbox.js"
import { isDelta } from "./outbox-groups.js"
import { createSessionLocks, isSessionLocked, type SessionLocks } from "./session-lock.js"

/** How long an origin (a process) that sent nothing is remembered: twice the table's retention. */
const FORGET_ORIGIN_MS = 20 * 60_000

/**
 * The coordinator of processes sharing one PostgreSQL database (and schema): ownership of a
 * session is an advisory lock (see session-lock.ts); messages go out in groups with NOTIFY on a
 * channel named after the schema and are kept a while in `<schema>.coordinator_messages` (see
 * outbox.ts), where groups too long for NOTIFY are fetched by reference and where a listener
 * that reconnects reads back what it missed. Connections are opened when first needed: a
 * runtime that never runs a session opens none but the listener.
 */
export class PostgresCoordinator implements Coordinator {
  readonly #origin = randomUUID()
  readonly #ownPrefix = ownPrefix(this.#origin)
  readonly #pool: pg.Pool
  readonly #config: pg.ClientConfig
  readonly #schema: string
  readonly #channel: string
  readonly #ready: () => Promise<void>
  readonly #outbox: ReturnType<typeof createOutbox>
  readonly #receiving = createSerialQueue()
  readonly #listeners = new Set<(message: CoordinatorMessage) => void>()
  readonly #locks: SessionLocks
  /** The last stored group heard from each origin, by its `seq`: what a read-back skips. */
  readonly #heard = new Map<string, { seq: number; at: number }>()
  /** Server time of the latest LISTEN: a read-back looks no further back for unknown origins. */
  #since: string | undefined
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
    /** The name to prepare a statement under; by default none (each is parsed every time). */
    name?: (statement: string) => string | undefined
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
      name: options.name ?? (() => undefined),
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
      this.#listener = createListener(
        this.#config,
        this.#channel,
        this.#ready,
        (payload) => this.#receive(payload),
        (first) => this.#receiving.run(() => this.#readBack(first)),
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
    // Our own, told by its start without parsing it (see envelopeText).
    if (payload.startsWith(this.#ownPrefix)) return
    // In arrival order, also when a long group must be fetched first. A payload that is not
    // ours (another program notifying on the channel) or a group already deleted is skipped.
    void this.#receiving
      .run(async () => {
        const envelope = JSON.parse(payload) as Envelope
        if (envelope.origin === this.#origin || this.#repeated(envelope.origin, envelope.seq)) return
        const messages =
          envelope.messages ?? (envelope.ref === undefined ? [] : await this.#outbox.fetch(envelope.ref))
        this.#deliver(messages)
      })
      .catch(() => undefined)
  }

  /**
   * After a LISTEN that follows a break, delivers what the other processes stored meanwhile:
   * groups after the last heard of their origin, and those of origins not heard since the
   * previous LISTEN. Streamed deltas were never stored; cancels are left out, as one that comes
   * late could stop a run started since. Runs in the receiving queue, before what the new
   * connection hears.
   */
  async #readBack(first: boolean): Promise<void> {
    const now = await this.#outbox.now()
    if (!first && this.#since !== undefined) {
      const seen = new Map([...this.#heard].map(([origin, { seq }]) => [origin, seq]))
      for (const group of await this.#outbox.missed(this.#since, seen))
        if (!this.#repeated(group.origin, group.seq))
          this.#deliver(group.messages.filter((message) => !isDelta(message) && message.type !== "cancel"))
      for (const [origin, { at }] of this.#heard)
        if (Date.now() - at > FORGET_ORIGIN_MS) this.#heard.delete(origin)
    }
    this.#since = now
  }

  /** Whether a stored group was delivered already (read back, then notified too); else notes it. */
  #repeated(origin: string, seq: number | undefined): boolean {
    if (seq === undefined) return false
    const last = this.#heard.get(origin)
    if (last && seq <= last.seq) return true
    this.#heard.set(origin, { seq, at: Date.now() })
    return false
  }

  #deliver(messages: readonly CoordinatorMessage[]): void {
    for (const message of messages) for (const listener of this.#listeners) listener(message)
  }

  #table(): string {
    return `"${this.#schema}".coordinator_messages`
  }
}
