import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { AssistantError } from "../message/errors.js"
import { ModelRef, Tokens } from "../message/part.js"
import { FileDiff } from "../snapshot/schema.js"
import { Ruleset } from "./permission.js"

/**
 * A stored session: its ID, slug, working directory, parent (for a child session), title, the
 * version that created it, times (created, updated, archived), its own permission rules, a summary
 * of the files its turns changed, and the revert in progress, if any. What `runtime.session.get`, `list` and the session events carry.
 */
export const Info = z.object({
  id: id("session"),
  slug: z.string(),
  directory: z.string(),
  parentID: id("session").optional(),
  title: z.string(),
  /** The agentloop version that created the session. */
  version: z.string(),
  time: z.object({
    created: z.number(),
    updated: z.number(),
    compacting: z.number().optional(),
    archived: z.number().optional(),
  }),
  /** Rules that apply to this session only, after the agent's and the runtime's. */
  permission: Ruleset.optional(),
  /** The agent its prompts use when they name none (before the runtime's default agent). */
  agent: z.string().min(1).optional(),
  /** The model its prompts use when neither they nor their agent name one and no turn has run yet. */
  model: ModelRef.optional(),
  /** The host's own data about the session (a user ID, a ticket): stored and returned as given. */
  metadata: z.record(z.string(), z.json()).optional(),
  summary: z
    .object({
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      files: z.number().int().nonnegative(),
      diffs: z.array(FileDiff).optional(),
    })
    .optional(),
  revert: z
    .object({
      messageID: id("message"),
      partID: id("part").optional(),
      snapshot: z.string().optional(),
      diff: z.string().optional(),
    })
    .optional(),
  cost: z.number().nonnegative(),
  /** Some step ran on a model without prices: `cost` leaves it out. */
  costUnknown: z.literal(true).optional(),
  tokens: Tokens,
})
export type Info = z.infer<typeof Info>

/** `Info` under the name files outside the `Session` namespace's folder import it by. */
export { Info as SessionInfo }

/**
 * What a session is doing: `idle`, `busy` running a turn, or `retry` waiting to retry a failed model
 * call (attempt, message, and `next`, when in epoch ms). Published as `session.status`.
 */
export const Status = z.discriminatedUnion("type", [
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("busy") }),
  z.object({
    type: z.literal("retry"),
    attempt: z.number().int().positive(),
    message: z.string(),
    /** When the next attempt starts, in epoch milliseconds. */
    next: z.number(),
  }),
])
export type Status = z.infer<typeof Status>

/** One item of the model's to-do list: content, status and priority, as `todowrite` stores it. */
export const Todo = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
})
export type Todo = z.infer<typeof Todo>

const sessionID = id("session")

/**
 * The session events, each a type and the zod schema of its properties: created, updated,
 * deleted, status, idle, error, diff and the others in docs/events.md. Use them with
 * `runtime.events.on(Session.Event.X.type, ...)`.
 */
export const Event = {
  Created: define("session.created", z.object({ sessionID, info: Info })),
  Updated: define("session.updated", z.object({ sessionID, info: Info })),
  Deleted: define("session.deleted", z.object({ sessionID, info: Info })),
  Error: define("session.error", z.object({ sessionID, error: AssistantError })),
  Diff: define("session.diff", z.object({ sessionID, diff: z.array(FileDiff) })),
  Status: define("session.status", z.object({ sessionID, status: Status })),
  Idle: define("session.idle", z.object({ sessionID })),
  Compacted: define("session.compacted", z.object({ sessionID })),
  TodoUpdated: define("todo.updated", z.object({ sessionID, todos: z.array(Todo) })),
}

/** `costUnknown`: some counted step ran on a model without prices, so `cost` leaves it out. */
export type Totals = { cost: number; tokens: Tokens; costUnknown?: true }
