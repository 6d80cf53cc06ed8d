import { StorageClosedError } from "./storage-closed-error.js"
import { StorageError } from "./storage-error.js"

/**
 * A storage that failed under a running turn, as opposed to one closed on purpose (the runtime
 * closing): the turn stops, and what it could not write is closed once storage works again.
 */
export function isStorageFault(error: unknown): boolean {
  return StorageError.isInstance(error) && !StorageClosedError.isInstance(error)
}
