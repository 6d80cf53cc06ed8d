import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const UnknownModelErrorData = z.object({
  providerID: z.string(),
  modelID: z.string(),
  /** Every model the provider does know, as `providerID/modelID`. */
  known: z.array(z.string()),
  message: z.string(),
})

/** A model was asked for that the provider was not configured with. */
export class UnknownModelError extends NamedError<
  "UnknownModelError",
  z.infer<typeof UnknownModelErrorData>
> {
  static override readonly errorName = "UnknownModelError"
  static readonly Schema = z.object({ name: z.literal("UnknownModelError"), data: UnknownModelErrorData })

  static of(ref: { providerID: string; modelID: string }, known: string[]): UnknownModelError {
    const list = known.length > 0 ? known.join(", ") : "none"
    return new UnknownModelError({
      providerID: ref.providerID,
      modelID: ref.modelID,
      known,
      message: `Unknown model ${ref.providerID}/${ref.modelID}. Known models: ${list}`,
    })
  }
}
