import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const Data = z.object({ sessionID: z.string(), message: z.string() })

/** The session is running (or waits for an answer), and the call would change what the run reads. */
export class BusyError extends NamedError<"BusyError", z.infer<typeof Data>> {
  static override readonly errorName = "BusyError"
  static readonly Schema = z.object({ name: z.literal("BusyError"), data: Data })

  static of(sessionID: string): BusyError {
    return new BusyError({ sessionID, message: `Session ${sessionID} is busy; try again once it is idle` })
  }
}
