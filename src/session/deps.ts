import type { Bus } from "../bus/bus.js"
import type { Generator } from "../id/identifier.js"
import type { Storage } from "../storage/port.js"
import type { MessageOwners } from "./message-owners.js"

/** What the session service needs from the runtime. */
export type SessionDeps = {
  storage: Storage
  bus: Bus
  ids: Generator
  directory: string
  /** Throws RuntimeClosedError once the runtime is closed. */
  assertOpen(): void
  /** Records which session each message written belongs to (see message-owners.ts). */
  messageOwners?: MessageOwners | undefined
  /** Before a session's messages are read for a caller: repairs what a stopped process left. */
  beforeRead?: ((sessionID: string) => Promise<void>) | undefined
}
