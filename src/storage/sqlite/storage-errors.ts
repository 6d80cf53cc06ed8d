import { z } from "zod"
import { NamedError } from "../../error/named-error.js"

const OpenData = z.object({ path: z.string(), message: z.string() })

/** A database path could not be opened: no SQLite driver is installed, or the driver refused the file. */
export class SqliteOpenError extends NamedError<"SqliteOpenError", z.infer<typeof OpenData>> {
  static override readonly errorName = "SqliteOpenError"
  static readonly Schema = z.object({ name: z.literal("SqliteOpenError"), data: OpenData })
}
