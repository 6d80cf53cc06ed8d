import { z } from "zod"
import { NamedError } from "./named-error.js"
import { truncate } from "./quote.js"

const NotFoundData = z.object({ id: z.string(), message: z.string() })

/**
 * A lookup named something that does not exist. `data.id` is the ID that was asked for; the
 * message quotes at most its first 100 characters.
 */
export class NotFoundError extends NamedError<"NotFoundError", z.infer<typeof NotFoundData>> {
  static override readonly errorName = "NotFoundError"
  static readonly Schema = z.object({ name: z.literal("NotFoundError"), data: NotFoundData })

  static of(kind: string, id: string): NotFoundError {
    return new NotFoundError({ id, message: `${kind} not found: ${truncate(id)}` })
  }
}
