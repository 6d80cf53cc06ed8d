import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { WithParts } from "../message/info.js"
import { Ruleset } from "../permission/schema.js"
import { Info } from "./info.js"

export const CreateInput = z.strictObject({
  parentID: id("session").optional(),
  title: z.string().min(1).optional(),
  permission: Ruleset.optional(),
})
export type CreateInput = z.input<typeof CreateInput>

export const ListInput = z.strictObject({
  parentID: id("session").optional(),
  limit: z.number().int().positive().optional(),
})
export type ListInput = z.input<typeof ListInput>

export const UpdateInput = z.strictObject({
  title: z.string().min(1).optional(),
  permission: Ruleset.optional(),
  /** true archives the session (stamping time.archived), false restores it. */
  archived: z.boolean().optional(),
})
export type UpdateInput = z.input<typeof UpdateInput>

export const ForkInput = z.strictObject({
  sessionID: id("session"),
  /** Copy only the messages before this one. Default: all messages. */
  messageID: id("message").optional(),
})
export type ForkInput = z.input<typeof ForkInput>

export const MessagesInput = z.strictObject({ limit: z.number().int().positive().optional() })
export type MessagesInput = z.input<typeof MessagesInput>

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

/** saveMessage's message, wrapped so that errors name it ("message.parts.0"). */
export const SaveMessageInput = z.object({ message: WithParts })

export const RevertInput = z.strictObject({
  sessionID: id("session"),
  messageID: id("message"),
  /** Revert from this part of the message on; default the whole message. */
  partID: id("part").optional(),
})
export type RevertInput = z.input<typeof RevertInput>

export const UnrevertInput = z.strictObject({ sessionID: id("session") })
export type UnrevertInput = z.input<typeof UnrevertInput>

export const DiffInput = z.strictObject({
  sessionID: id("session"),
  /** Only what this message's turn changed (a user message), or its own steps (an assistant message). */
  messageID: id("message").optional(),
})
export type DiffInput = z.input<typeof DiffInput>
