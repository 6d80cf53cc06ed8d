import { z } from "zod"

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
