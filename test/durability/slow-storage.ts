import type { MessageQuery, SessionQuery, Storage, StorageWrite } from "../../src/index.js"
import { sleep } from "./probe-tool.js"

/**
 * A storage that waits a little before each write, as a slower disk or a database over the
 * network would. The writes of one step (a part, the message, the session's totals) are separate
 * and fast; the pause makes the gaps between them wide enough for a random kill to land there.
 */
export class SlowStorage implements Storage {
  readonly #inner: Storage
  readonly #delayMs: number

  constructor(inner: Storage, delayMs: number) {
    this.#inner = inner
    this.#delayMs = delayMs
  }

  getSession(sessionID: string) {
    return this.#inner.getSession(sessionID)
  }
  listSessions(query?: SessionQuery) {
    return this.#inner.listSessions(query)
  }
  getMessage(sessionID: string, messageID: string) {
    return this.#inner.getMessage(sessionID, messageID)
  }
  listMessages(sessionID: string, query?: MessageQuery) {
    return this.#inner.listMessages(sessionID, query)
  }
  getValue(key: string) {
    return this.#inner.getValue(key)
  }
  listValues(prefix: string) {
    return this.#inner.listValues(prefix)
  }
  async write(writes: readonly StorageWrite[]): Promise<void> {
    await sleep(this.#delayMs)
    await this.#inner.write(writes)
  }
  close() {
    return this.#inner.close()
  }
}
