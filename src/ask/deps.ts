import type { Bus } from "../bus/bus.js"
import type { Generator } from "../id/identifier.js"
import type { Storage } from "../storage/port.js"

/** What the permission and question services need from the runtime. */
export type AskDeps = {
  storage: Storage
  bus: Bus
  ids: Generator
  assertOpen(): void
  /** Default time a request waits for an answer; none means no limit. */
  askTimeoutMs?: number | undefined
  /** For hosts with no human and no handler: what an "ask" becomes. */
  nonInteractive?: "deny" | "allow" | undefined
}
