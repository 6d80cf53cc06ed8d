import type { Result } from "../tool/tool.js"

/** A tool input as stored: the model's JSON object, or the raw value wrapped when it was not one. */
export function inputRecord(input: unknown): Record<string, unknown> {
  if (typeof input === "object" && input !== null && !Array.isArray(input))
    return input as Record<string, unknown>
  return input === undefined ? {} : { value: input }
}

/** A tool result as stored: ours carry title and metadata; provider-executed tools return anything. */
export function toolResult(output: unknown): Result {
  if (isResult(output)) return output
  return {
    title: "",
    output: typeof output === "string" ? output : JSON.stringify(output ?? null),
    metadata: {},
  }
}

function isResult(value: unknown): value is Result {
  if (typeof value !== "object" || value === null) return false
  const candidate = value as Record<string, unknown>
  return (
    typeof candidate.title === "string" &&
    typeof candidate.output === "string" &&
    typeof candidate.metadata === "object" &&
    candidate.metadata !== null
  )
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === "string") return error
  return JSON.stringify(error)
}
