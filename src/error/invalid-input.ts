import { z } from "zod"
import { NamedError } from "./named-error.js"
import { quote, truncate } from "./quote.js"

// Room for the longest message a schema writes itself; what is longer is quoting its input.
const MESSAGE_LIMIT = 300

const Issue = z.object({ path: z.string(), message: z.string() })
const InvalidInputData = z.object({ message: z.string(), issues: z.array(Issue) })

/** Input to a public function failed its schema. Each issue names the offending field. */
export class InvalidInputError extends NamedError<"InvalidInputError", z.infer<typeof InvalidInputData>> {
  static override readonly errorName = "InvalidInputError"
  static readonly Schema = z.object({ name: z.literal("InvalidInputError"), data: InvalidInputData })

  static fromZod(what: string, error: z.ZodError): InvalidInputError {
    const issues = issuesOf(error)
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
    return new InvalidInputError({ message: `Invalid ${what}: ${summary}`, issues }, { cause: error })
  }
}

/** A zod error's issues, each naming its field ("(root)" for the value itself). */
export function issuesOf(error: z.ZodError): z.infer<typeof Issue>[] {
  // Keys come from the input, and zod's messages quote unknown ones whole: cap them.
  return error.issues.map((issue) => ({
    path: issue.path.map((segment) => truncate(String(segment))).join(".") || "(root)",
    message: truncate(
      issue.code === "unrecognized_keys"
        ? `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map(quote).join(", ")}`
        : issue.message,
      MESSAGE_LIMIT,
    ),
  }))
}

/**
 * Parses `value` with `schema`, turning a failure into an InvalidInputError about `what`.
 * Without zod's compiled fast path: inputs are parsed once per call (an option, a prompt), where
 * compiling each object schema at its first parse costs more than it ever saves, and most of it
 * would land on a process's first turn.
 */
export function parseInput<T extends z.ZodType>(what: string, schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value, { jitless: true })
  if (!result.success) throw InvalidInputError.fromZod(what, result.error)
  return result.data
}
