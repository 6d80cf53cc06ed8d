import type { Event } from "../schema/events.js"
import type { ReplyInput as PermissionReplyInput } from "../schema/permission.js"
import type { ReplyInput as QuestionReplyInput } from "../schema/question.js"

/**
 * What one process tells the others on the same database: its events (so every process's
 * `runtime.events` sees them), a prompt it stored for a session another process may be running,
 * a cancel, and answers to permission requests and questions another process may be waiting on.
 */
export type CoordinatorMessage =
  | { type: "event"; event: Event }
  | { type: "prompt"; sessionID: string; messageID: string }
  | {
      type: "cancel"
      sessionID: string
      /**
       * When it was sent (milliseconds since the epoch). A coordinator that may deliver a cancel
       * late sets it: the runs and prompts of the session that started after it go on.
       */
      sentAt?: number
    }
  | { type: "permission.reply"; sessionID: string; input: PermissionReplyInput }
  | { type: "question.reply"; sessionID: string; input: QuestionReplyInput }
  | { type: "question.reject"; sessionID: string; requestID: string }

/** Ownership of one session's loop, held until `release`, or lost if the holder's link breaks. */
export interface Lease {
  /** Aborts if ownership was lost without `release` (say, the database connection dropped). */
  readonly lost: AbortSignal
  release(): Promise<void>
}

/**
 * How the runtimes of several processes sharing one storage stay out of each other's way: a
 * session's loop runs in one process at a time (`claim`), and messages reach every other
 * process (`publish`, `subscribe`). A process that dies must lose its leases within a bounded
 * time, so that another can take its sessions over. `PostgresStorage` brings one; without a
 * coordinator a runtime assumes it is alone with its storage.
 */
export interface Coordinator {
  /**
   * Makes this process the session's owner. With `wait: false` resolves undefined at once when
   * another process owns it; otherwise waits until it can, or until `signal` aborts (then
   * undefined).
   */
  claim(sessionID: string, options: { wait: boolean; signal?: AbortSignal }): Promise<Lease | undefined>
  /** Sends to every other process, in the order of the calls; never back to this one. */
  publish(message: CoordinatorMessage): Promise<void>
  /**
   * Receives the other processes' messages; returns the unsubscribe function. A coordinator whose
   * link broke may deliver what it missed once the link is back (PostgreSQL's does), late but in
   * order, except cancels without `sentAt`: one that came late could stop a run started since.
   */
  subscribe(listener: (message: CoordinatorMessage) => void): () => void
}
