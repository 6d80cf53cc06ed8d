import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import { schema as id } from "../id/identifier.js"
import { WithParts } from "../message/info.js"
import { Ruleset } from "../schema/permission.js"
import { Info } from "../schema/session.js"

/**
 * What `runtime.session.create` takes: a parent session (for a child session), a title (else a
 * dated default), permission rules of the session's own, the agent and model its prompts use by
 * default, and the host's metadata. Anything else, or a malformed value, throws `InvalidInputError`.
 */
export const CreateInput = z.strictObject({
  parentID: id("session").optional(),
  title: z.string().min(1).optional(),
  permission: Ruleset.optional(),
  agent: Info.shape.agent,
  model: Info.shape.model,
  metadata: Info.shape.metadata,
})
export type CreateInput = z.input<typeof CreateInput>

/**
 * What `runtime.session.list` takes: only the children of `parentID`, at most `limit`, newest
 * first. A malformed value throws `InvalidInputError`.
 */
export const ListInput = z.strictObject({
  parentID: id("session").optional(),
  limit: z.number().int().positive().optional(),
})
export type ListInput = z.input<typeof ListInput>

/**
 * The patch `runtime.session.update` applies: title, permission rules, archived, metadata (which
 * replaces the old). A malformed patch throws `InvalidInputError`; an unknown session, `NotFoundError`.
 */
export const UpdateInput = z.strictObject({
  title: z.string().min(1).optional(),
  permission: Ruleset.optional(),
  /** true archives the session (stamping time.archived with now, or with the time given), false restores it. */
  archived: z.union([z.boolean(), z.number().int().nonnegative()]).optional(),
  metadata: Info.shape.metadata,
})
export type UpdateInput = z.input<typeof UpdateInput>

/**
 * What `runtime.session.fork` takes: the session to copy and, optionally, the message to stop
 * before. A malformed value throws `InvalidInputError`; an unknown session or message,
 * `NotFoundError`.
 */
export const ForkInput = z.strictObject({
  sessionID: id("session"),
  /** Copy only the messages before this one. Default: all messages. */
  messageID: id("message").optional(),
})
export type ForkInput = z.input<typeof ForkInput>

/** What `runtime.session.messages` takes: `limit` for only the newest messages (still oldest first). */
export const MessagesInput = z.strictObject({ limit: z.number().int().positive().optional() })
export type MessagesInput = z.input<typeof MessagesInput>

/**
 * A piece of streamed text appended to a part's `text`, published as `message.part.delta` while the
 * model streams; the whole part is stored when it ends.
 */
export const PartDelta = z.strictObject({
  sessionID: id("session"),
  messageID: id("message"),
  partID: id("part"),
  field: z.literal("text"),
  delta: z.string(),
})
export type PartDelta = z.input<typeof PartDelta>

/** recordUsage's usage, wrapped so that errors name it ("usage.tokens"). */
export const RecordUsageInput = z.object({
  usage: Info.pick({ cost: true, costUnknown: true, tokens: true }),
})
type Usage = z.output<typeof RecordUsageInput>["usage"]

/**
 * `usage` when RecordUsageInput takes it, checked by hand: every step records one, and the parse
 * was most of what that cost. Its other keys stay, unread; zod names what is wrong.
 */
export function recordedUsage(usage: unknown): Usage {
  if (isUsage(usage)) return usage
  return parseInput("session.recordUsage input", RecordUsageInput, { usage }).usage
}

function isUsage(value: unknown): value is Usage {
  if (!isObject(value) || !isAmount(value.cost)) return false
  if (value.costUnknown !== undefined && value.costUnknown !== true) return false
  const { tokens } = value
  if (!isObject(tokens) || !isObject(tokens.cache)) return false
  const { input, output, reasoning, cache } = tokens
  return (
    isAmount(input) &&
    isAmount(output) &&
    isAmount(reasoning) &&
    isAmount(cache.read) &&
    isAmount(cache.write)
  )
}

/** What `z.object` takes: an object, not a list. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What `z.number().nonnegative()` takes: a finite number, zero or more. */
const isAmount = (value: unknown): boolean =>
  typeof value === "number" && Number.isFinite(value) && value >= 0

/** saveMessage's message, wrapped so that errors name it ("message.parts.0"). */
export const SaveMessageInput = z.object({ message: WithParts })

/**
 * What `runtime.session.revert` takes: the message (and optionally the part) to undo from, files
 * included when a `Snapshot` is configured. A malformed value throws `InvalidInputError`; an unknown
 * session or message, `NotFoundError`.
 */
export const RevertInput = z.strictObject({
  sessionID: id("session"),
  messageID: id("message"),
  /** Revert from this part of the message on; default the whole message. */
  partID: id("part").optional(),
})
export type RevertInput = z.input<typeof RevertInput>

/** What `runtime.session.unrevert` takes: the session whose pending revert to undo. */
export const UnrevertInput = z.strictObject({ sessionID: id("session") })
export type UnrevertInput = z.input<typeof UnrevertInput>

/** What `runtime.session.diff` takes: the session and, optionally, the message whose changes to show. */
export const DiffInput = z.strictObject({
  sessionID: id("session"),
  /** Only what this message's turn changed (a user message), or its own steps (an assistant message). */
  messageID: id("message").optional(),
})
export type DiffInput = z.input<typeof DiffInput>
