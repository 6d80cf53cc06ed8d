import { isNamedError } from "../error/named-error.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import type { Storage, StorageWrite } from "./port.js"
import { StorageError } from "./storage-error.js"

/**
 * The storage as the loop writes to it. Writes to frozen sessions fail with RuntimeClosedError,
 * as if the process had stopped: what a run of such a session has not written by then is never
 * written. `runtime.close()` freezes the sessions whose turns wait for a human, so that they stay
 * stored exactly as a crash would leave them, and the next process resumes them when answered.
 * A write that fails with an error no one named (a host's adapter, a driver) fails with a
 * StorageError of reason "io" whose cause it is, so the loop and its callers can tell it.
 */
export function fenceSessions(storage: Storage): {
  storage: Storage
  freeze(sessionIDs: Iterable<string>): void
} {
  const frozen = new Set<string>()
  const fenced: Storage = {
    getSession: (sessionID) => storage.getSession(sessionID),
    listSessions: (query) => storage.listSessions(query),
    getMessage: (sessionID, messageID) => storage.getMessage(sessionID, messageID),
    listMessages: (sessionID, query) => storage.listMessages(sessionID, query),
    getValue: (key) => storage.getValue(key),
    listValues: (prefix) => storage.listValues(prefix),
    async write(writes) {
      if (
        frozen.size > 0 &&
        Array.isArray(writes) &&
        writes.some((write) => frozen.has(sessionOf(write) ?? ""))
      )
        throw new RuntimeClosedError({ message: "The runtime is closed" })
      try {
        return await storage.write(writes)
      } catch (error) {
        throw named(error)
      }
    },
    close: () => storage.close(),
    ...(storage.coordinator ? { coordinator: storage.coordinator } : {}),
  }
  return {
    storage: fenced,
    freeze(sessionIDs) {
      for (const sessionID of sessionIDs) frozen.add(sessionID)
    },
  }
}

function named(error: unknown): unknown {
  if (isNamedError(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  return new StorageError({ reason: "io", retryable: false, message }, { cause: error })
}

function sessionOf(write: StorageWrite): string | undefined {
  switch (write.type) {
    case "session.put":
      return write.info.id
    case "message.put":
      return write.info.sessionID
    case "part.put":
      return write.part.sessionID
    case "session.remove":
    case "message.remove":
    case "part.remove":
      return write.sessionID
    default:
      return undefined
  }
}
