import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const SessionMovedData = z.object({ sessionID: z.string(), message: z.string() })

/**
 * This process lost a session's ownership while its turn ran (its lock connection dropped), and
 * another process took the session before it could take it back: the turn ends here, and the
 * session goes on in that process. A coordination error, beside the StorageError family: the
 * storage itself worked.
 */
export class SessionMovedError extends NamedError<"SessionMovedError", z.infer<typeof SessionMovedData>> {
  static override readonly errorName = "SessionMovedError"
  static readonly Schema = z.object({ name: z.literal("SessionMovedError"), data: SessionMovedData })

  static of(sessionID: string): SessionMovedError {
    return new SessionMovedError({
      sessionID,
      message: `Session ${sessionID} moved to another process: it took the session while this one's lock connection was down`,
    })
  }
}
