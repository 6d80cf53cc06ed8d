import { z } from "zod"

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
