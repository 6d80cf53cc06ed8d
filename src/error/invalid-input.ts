import { z } from "zod"
import { NamedError } from "./named-error.js"

const Issue = z.object({ path: z.string(), message: z.string() })
const InvalidInputData = z.object({ message: z.string(), issues: z.array(Issue) })

/** Input to a public function failed its schema. Each issue names the offending field. */
export class InvalidInputError extends NamedError<"InvalidInputError", z.infer<typeof InvalidInputData>> {
  static override readonly errorName = "InvalidInputError"
  static readonly Schema = z.object({ name: z.literal("InvalidInputError"), data: InvalidInputData })

  static fromZod(what: string, error: z.ZodError): InvalidInputError {
    const issues = error.issues.map((issue) => ({
      path: issue.path.map(String).join(".") || "(root)",
      message: issue.message,
    }))
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
    return new InvalidInputError({ message: `Invalid ${what}: ${summary}`, issues }, { cause: error })
  }
}

/** Parses `value` with `schema`, turning a failure into an InvalidInputError about `what`. */
export function parseInput<T extends z.ZodType>(what: string, schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value)
  if (!result.success) throw InvalidInputError.fromZod(what, result.error)
  return result.data
}
