import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const MessageData = z.object({ message: z.string() })

/** `options.authorize` refused the request. */
export class UnauthorizedError extends NamedError<"UnauthorizedError", z.infer<typeof MessageData>> {
  static override readonly errorName = "UnauthorizedError"
  static readonly Schema = z.object({ name: z.literal("UnauthorizedError"), data: MessageData })
}

const PayloadTooLargeData = z.object({ message: z.string(), limit: z.number() })

/** The request body is larger than `options.bodyLimit`. */
export class PayloadTooLargeError extends NamedError<
  "PayloadTooLargeError",
  z.infer<typeof PayloadTooLargeData>
> {
  static override readonly errorName = "PayloadTooLargeError"
  static readonly Schema = z.object({ name: z.literal("PayloadTooLargeError"), data: PayloadTooLargeData })
}

const ForbiddenHostData = z.object({ message: z.string(), host: z.string() })

/**
 * A server without `authorize` answered a request whose `Host` or `Origin` is not this machine
 * (nor one of `allowedHosts`): what a web page sends after rebinding its name to 127.0.0.1.
 */
export class ForbiddenHostError extends NamedError<"ForbiddenHostError", z.infer<typeof ForbiddenHostData>> {
  static override readonly errorName = "ForbiddenHostError"
  static readonly Schema = z.object({ name: z.literal("ForbiddenHostError"), data: ForbiddenHostData })
}
