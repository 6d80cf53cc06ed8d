import { z } from "zod"
import { NamedError } from "./named-error.js"

const RuntimeClosedData = z.object({ message: z.string() })

/** A call reached a runtime after `runtime.close()`. */
export class RuntimeClosedError extends NamedError<"RuntimeClosedError", z.infer<typeof RuntimeClosedData>> {
  static override readonly errorName = "RuntimeClosedError"
  static readonly Schema = z.object({ name: z.literal("RuntimeClosedError"), data: RuntimeClosedData })
}
