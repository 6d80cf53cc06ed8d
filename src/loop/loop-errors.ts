import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const MessageData = z.object({ message: z.string() })

/** A prompt reached a runtime created without a provider. */
export class MissingProviderError extends NamedError<"MissingProviderError", z.infer<typeof MessageData>> {
  static override readonly errorName = "MissingProviderError"
  static readonly Schema = z.object({ name: z.literal("MissingProviderError"), data: MessageData })
}

/** The loop was asked to run on a session that has no user message to answer. */
export class NoUserMessageError extends NamedError<"NoUserMessageError", z.infer<typeof MessageData>> {
  static override readonly errorName = "NoUserMessageError"
  static readonly Schema = z.object({ name: z.literal("NoUserMessageError"), data: MessageData })
}
