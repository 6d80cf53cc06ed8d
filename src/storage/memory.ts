import { NotFoundError } from "../error/not-found.js"
import type { WithParts } from "../message/info.js"
import type { SessionInfo } from "../schema/session.js"
import { type CheckedWrite, writeChecked } from "./checked-write.js"
import type { MessageQuery, SessionQuery, Storage, StorageWrite } from "./port.js"
import { type EncodedWrite, encodeWrites, refuseParentCycle, requireString } from "./rows.js"
import { SortedMap } from "./sorted-map.js"

type StoredMessage = { json: string; parts: Map<string, string> }
type StoredSession = { json: string; parentID: string | undefined; messages: SortedMap<StoredMessage> }
type Undo = () => void

/**
 * Keeps everything in process memory, as JSON text so that callers can never alias stored
 * objects. The default storage: for tests and sessions that need not outlive the process.
 *
 * Every text it holds is the JSON of a row validateWrites just validated, and nothing else can
 * reach it, so reads return `JSON.parse` copies without decoding them again.
 */
export class MemoryStorage implements Storage {
  readonly #sessions = new Map<string, StoredSession>()
  readonly #values = new Map<string, string>()

  async getSession(sessionID: string): Promise<SessionInfo | undefined> {
    const session = this.#sessions.get(requireString("sessionID", sessionID))
    return session ? (JSON.parse(session.json) as SessionInfo) : undefined
  }

  async listSessions(query: SessionQuery = {}): Promise<SessionInfo[]> {
    if (query.parentID !== undefined) requireString("parentID", query.parentID)
    const ids = [...this.#sessions.keys()]
      .filter((id) => query.parentID === undefined || this.#sessions.get(id)!.parentID === query.parentID)
      .sort()
    const limited = query.limit === undefined ? ids : ids.slice(0, query.limit)
    return limited.map((id) => JSON.parse(this.#sessions.get(id)!.json) as SessionInfo)
  }

  async getMessage(sessionID: string, messageID: string): Promise<WithParts | undefined> {
    const message = this.#session(sessionID).messages.get(requireString("messageID", messageID))
    return message ? withParts(message) : undefined
  }

  async listMessages(sessionID: string, query: MessageQuery = {}): Promise<WithParts[]> {
    const messages = this.#session(sessionID).messages
    return messages.keys(query.limit).map((id) => withParts(messages.get(id)!))
  }

  async getValue(key: string): Promise<unknown> {
    const json = this.#values.get(requireString("key", key))
    return json === undefined ? undefined : (JSON.parse(json) as unknown)
  }

  async listValues(prefix: string): Promise<{ key: string; value: unknown }[]> {
    requireString("prefix", prefix)
    return [...this.#values.keys()]
      .filter((key) => key.startsWith(prefix))
      .sort()
      .map((key) => ({ key, value: JSON.parse(this.#values.get(key)!) as unknown }))
  }

  async write(writes: readonly StorageWrite[]): Promise<void> {
    this.#applyAll(encodeWrites(writes))
  }

  /** @internal `write` for the runtime's own batches, whose checked rows skip their schema parse. */
  async [writeChecked](writes: readonly CheckedWrite[]): Promise<void> {
    const flags = writes.map((entry) => entry.checked)
    this.#applyAll(
      encodeWrites(
        writes.map((entry) => entry.write),
        flags,
      ),
    )
  }

  async close(): Promise<void> {}

  /** Applies a validated batch, all of it or nothing. */
  #applyAll(valid: readonly EncodedWrite[]): void {
    const undo: Undo[] = []
    try {
      for (const [index, { write, json }] of valid.entries()) this.#apply(write, json, index, undo)
    } catch (error) {
      for (const step of undo.reverse()) step()
      throw error
    }
  }

  #session(sessionID: string): StoredSession {
    const session = this.#sessions.get(requireString("sessionID", sessionID))
    if (!session) throw NotFoundError.of("Session", sessionID)
    return session
  }

  #message(sessionID: string, messageID: string): StoredMessage {
    const message = this.#session(sessionID).messages.get(messageID)
    if (!message) throw NotFoundError.of("Message", messageID)
    return message
  }

  /** Applies a validated write; `json`, its row's or value's text, is there for every put. */
  #apply(write: StorageWrite, json: string | undefined, index: number, undo: Undo[]) {
    switch (write.type) {
      case "session.put": {
        const { id, parentID } = write.info
        if (parentID !== undefined) this.#session(parentID)
        refuseParentCycle(write.info, index, (sessionID) => this.#sessions.get(sessionID)?.parentID)
        const previous = this.#sessions.get(id)
        this.#sessions.set(id, { json: json!, parentID, messages: previous?.messages ?? new SortedMap() })
        undo.push(() => (previous ? this.#sessions.set(id, previous) : this.#sessions.delete(id)))
        return
      }
      case "session.remove": {
        this.#session(write.sessionID)
        for (const id of this.#descendantsAndSelf(write.sessionID)) {
          const removed = this.#sessions.get(id)!
          this.#sessions.delete(id)
          undo.push(() => this.#sessions.set(id, removed))
        }
        return
      }
      case "message.put": {
        const messages = this.#session(write.info.sessionID).messages
        const { id } = write.info
        const previous = messages.get(id)
        messages.set(id, { json: json!, parts: previous?.parts ?? new Map() })
        undo.push(() => (previous ? messages.set(id, previous) : messages.delete(id)))
        return
      }
      case "message.remove": {
        const messages = this.#session(write.sessionID).messages
        const removed = this.#message(write.sessionID, write.messageID)
        messages.delete(write.messageID)
        undo.push(() => messages.set(write.messageID, removed))
        return
      }
      case "part.put": {
        const parts = this.#message(write.part.sessionID, write.part.messageID).parts
        const { id } = write.part
        const previous = parts.get(id)
        parts.set(id, json!)
        undo.push(() => (previous === undefined ? parts.delete(id) : parts.set(id, previous)))
        return
      }
      case "part.remove": {
        const parts = this.#message(write.sessionID, write.messageID).parts
        const removed = parts.get(write.partID)
        if (removed === undefined) throw NotFoundError.of("Part", write.partID)
        parts.delete(write.partID)
        undo.push(() => parts.set(write.partID, removed))
        return
      }
      case "value.put": {
        const previous = this.#values.get(write.key)
        this.#values.set(write.key, json!)
        undo.push(() =>
          previous === undefined ? this.#values.delete(write.key) : this.#values.set(write.key, previous),
        )
        return
      }
      case "value.remove": {
        const previous = this.#values.get(write.key)
        if (previous === undefined) return
        this.#values.delete(write.key)
        undo.push(() => this.#values.set(write.key, previous))
        return
      }
    }
  }

  #descendantsAndSelf(sessionID: string): string[] {
    // A Set, so that a parent cycle written by a careless caller cannot loop forever.
    const found = new Set([sessionID])
    for (const parent of found) {
      for (const [id, session] of this.#sessions) if (session.parentID === parent) found.add(id)
    }
    return [...found]
  }
}

function withParts(message: StoredMessage): WithParts {
  const partIDs = [...message.parts.keys()].sort()
  return { info: JSON.parse(message.json), parts: partIDs.map((id) => JSON.parse(message.parts.get(id)!)) }
}
