import { z } from "zod"
import { StorageError, StorageErrorData } from "./storage-error.js"

const ClosedData = StorageErrorData.extend({ reason: z.literal("closed"), retryable: z.literal(false) })

/**
 * The storage was used after `close()` (a closed runtime closes its storage): the StorageError
 * of reason "closed", under its own name since before that family existed.
 */
export class StorageClosedError extends StorageError<"StorageClosedError"> {
  static override readonly errorName = "StorageClosedError"
  static override readonly Schema = z.object({ name: z.literal("StorageClosedError"), data: ClosedData })

  constructor(data: { message: string }, options?: { cause?: unknown }) {
    super({ reason: "closed", retryable: false, message: data.message }, options)
  }
}
