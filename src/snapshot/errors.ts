import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const Data = z.object({ message: z.string() })

/**
 * File history was asked for (revert, unrevert, diff) and cannot be had: no Snapshot is
 * configured, `git` is missing, the snapshot directory cannot be written, or a state is unknown.
 */
export class SnapshotUnavailableError extends NamedError<"SnapshotUnavailableError", z.infer<typeof Data>> {
  static override readonly errorName = "SnapshotUnavailableError"
  static readonly Schema = z.object({ name: z.literal("SnapshotUnavailableError"), data: Data })
}
