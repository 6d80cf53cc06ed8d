import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const SchemaVersionData = z.object({
  /** The schema version recorded in the database (SQLite's `user_version`, PostgreSQL's meta table). */
  found: z.number().int(),
  /** The newest schema version this copy of agentloop knows. */
  supported: z.number().int(),
  message: z.string(),
})

/**
 * The database was migrated by a newer agentloop. Opening it anyway could misread or damage
 * rows whose shape changed, so the adapter refuses: upgrade agentloop, or use another database.
 */
export class SchemaVersionError extends NamedError<"SchemaVersionError", z.infer<typeof SchemaVersionData>> {
  static override readonly errorName = "SchemaVersionError"
  static readonly Schema = z.object({ name: z.literal("SchemaVersionError"), data: SchemaVersionData })

  static of(found: number, supported: number, database = "SQLite database"): SchemaVersionError {
    const message =
      `The ${database} has schema version ${found}, but this agentloop supports up to ${supported}: ` +
      "it was written by a newer agentloop; upgrade agentloop to open it"
    return new SchemaVersionError({ found, supported, message })
  }
}
