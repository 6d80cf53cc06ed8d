import type { Bus } from "../bus/bus.js"
import type { CoordinatorMessage } from "../coordination/port.js"
import type { Generator } from "../id/identifier.js"
import type { Storage } from "../storage/port.js"

/** An answer another process may be waiting for. */
export type Forwarded = Extract<
  CoordinatorMessage,
  { type: "permission.reply" | "question.reply" | "question.reject" }
>

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
  /**
   * An answer to a request no caller of this runtime waits for: when another process runs the
   * request's session (and so may be waiting for it), sends `message` there and resolves true.
   * The services record the answer with the request first, for the session's next run to act
   * on should that process stop before it does.
   */
  forwardElsewhere?: ((message: Forwarded) => Promise<boolean>) | undefined
}
