import type { Coordinator, CoordinatorMessage, Lease } from "../../coordination/port.js"
import type { CoordinatorPolicy } from "./coordinator-options.js"
import { currentOwner, ownerIsGone } from "./lease-owner.js"
import type { Attempt } from "./lease-rows.js"
import { createLeases, type Leases } from "./leases.js"
import { createMessageLog } from "./message-log.js"

/**
 * The coordinator of processes sharing one SQLite file, on the storage's own connection (see
 * docs/scaling.md, "SQLite: several processes"): ownership of a session is a lease row with an
 * expiry that its holder renews (leases.ts), so a dead process's sessions are free once its
 * leases expire; prompts, cancels and answers travel as rows the other processes poll
 * (message-log.ts); events stay in the process that publishes them. A lease whose owner's process
 * is provably gone (same machine, see lease-owner.ts) is free at once. Nothing runs until the first
 * claim or subscribe, and every timer is cleared by `close()` (SqliteStorage.close()).
 */
export class SqliteCoordinator implements Coordinator {
  readonly #leases: Leases
  readonly #messages: ReturnType<typeof createMessageLog>

  constructor(options: { attempt: Attempt; policy: CoordinatorPolicy }) {
    // One ID per coordinator: whose leases these are, and which stored messages are its own. The
    // leases name this process too, so that another on this machine can see when it is gone.
    const self = currentOwner()
    const claimant = { owner: JSON.stringify(self), isGone: (other: string) => ownerIsGone(other, self) }
    this.#leases = createLeases({ ...options, claimant })
    this.#messages = createMessageLog({ ...options, origin: self.id })
  }

  /**
   * With `wait`, looks again every few milliseconds (doubling up to `pollMs`), and at once when
   * this process lets the session go, until it is free or `signal` aborts.
   */
  claim(sessionID: string, options: { wait: boolean; signal?: AbortSignal }): Promise<Lease | undefined> {
    return this.#leases.claim(sessionID, options)
  }

  /** Sends prompts, cancels and answers to the other processes; events go nowhere (see message-log.ts). */
  publish(message: CoordinatorMessage): Promise<void> {
    return this.#messages.publish(message)
  }

  subscribe(listener: (message: CoordinatorMessage) => void): () => void {
    return this.#messages.subscribe(listener)
  }

  /** Resolves once this process hears the others (after the first `subscribe`). */
  listening(): Promise<void> {
    return this.#messages.listening
  }

  /** Stores what was published, then ends every wait, lease and timer; called by SqliteStorage.close(). */
  async close(): Promise<void> {
    await this.#messages.close()
    this.#leases.close()
  }
}
