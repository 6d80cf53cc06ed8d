import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const ClosedData = z.object({ message: z.string() })

/** The storage was used after `close()` (a closed runtime closes its storage). */
export class StorageClosedError extends NamedError<"StorageClosedError", z.infer<typeof ClosedData>> {
  static override readonly errorName = "StorageClosedError"
  static readonly Schema = z.object({ name: z.literal("StorageClosedError"), data: ClosedData })
}
