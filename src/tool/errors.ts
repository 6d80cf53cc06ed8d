import { z } from "zod"
import { NamedError } from "../error/named-error.js"

const InvalidToolArgumentsData = z.object({
  tool: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
})

/** The model called a tool with arguments that fail its parameters; the message tells it how to retry. */
export class InvalidToolArgumentsError extends NamedError<
  "InvalidToolArgumentsError",
  z.infer<typeof InvalidToolArgumentsData>
> {
  static override readonly errorName = "InvalidToolArgumentsError"
  static readonly Schema = z.object({
    name: z.literal("InvalidToolArgumentsError"),
    data: InvalidToolArgumentsData,
  })

  static fromZod(tool: string, error: z.ZodError): InvalidToolArgumentsError {
    const issues = error.issues.map((issue) => ({
      path: issue.path.map(String).join(".") || "(root)",
      message: issue.message,
    }))
    const listed = issues.map((issue) => `- ${issue.path}: ${issue.message}`).join("\n")
    return new InvalidToolArgumentsError({
      tool,
      issues,
      message: `The ${tool} tool was called with invalid arguments:\n${listed}\nCall it again with arguments that match its parameters.`,
    })
  }
}

const UnstorableResultData = z.object({ tool: z.string(), message: z.string() })

/** A tool returned something storage cannot keep (a BigInt, a cycle, a function): the call fails readably. */
export class UnstorableResultError extends NamedError<
  "UnstorableResultError",
  z.infer<typeof UnstorableResultData>
> {
  static override readonly errorName = "UnstorableResultError"
  static readonly Schema = z.object({ name: z.literal("UnstorableResultError"), data: UnstorableResultData })
}
