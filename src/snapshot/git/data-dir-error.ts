import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const Data = z.object({ message: z.string(), directory: z.string(), dataDir: z.string() })

/**
 * GitSnapshot was given a data directory it cannot keep out of its own snapshots: the tracked
 * directory itself. (A data directory anywhere below the tracked one is fine: it is left out.)
 */
export class SnapshotDataDirError extends NamedError<"SnapshotDataDirError", z.infer<typeof Data>> {
  static override readonly errorName = "SnapshotDataDirError"
  static readonly Schema = z.object({ name: z.literal("SnapshotDataDirError"), data: Data })

  static of(directory: string, dataDir: string): SnapshotDataDirError {
    return new SnapshotDataDirError({
      message:
        `GitSnapshot dataDir ${dataDir} is the tracked directory itself: its snapshots would record ` +
        `their own files. Pass a dataDir outside ${directory}, or a subdirectory of it (snapshots ` +
        "leave that subdirectory out).",
      directory,
      dataDir,
    })
  }
}
