import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const CorruptRowData = z.object({
  kind: z.enum(["session", "message", "part", "value"]),
  id: z.string(),
  message: z.string(),
})

/** A stored row no longer matches its schema: written by something else, or by an incompatible version. */
export class CorruptRowError extends NamedError<"CorruptRowError", z.infer<typeof CorruptRowData>> {
  static override readonly errorName = "CorruptRowError"
  static readonly Schema = z.object({ name: z.literal("CorruptRowError"), data: CorruptRowData })
}
