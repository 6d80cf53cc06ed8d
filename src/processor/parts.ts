import { jsonResult, type StructuredResult } from "../tool/result.js"
import type { Result } from "../tool/tool.js"

/** A tool input as stored: the model's JSON object, or the raw value wrapped when it was not one. */
export function inputRecord(input: unknown): Record<string, unknown> {
  if (typeof input === "object" && input !== null && !Array.isArray(input))
    return input as Record<string, unknown>
  return input === undefined ? {} : { value: input }
}

/**
 * A tool result as stored: ours carry title and metadata; a provider-executed tool's is the
 * provider's JSON, kept as it is (`structured`) since the provider reads it back on later steps.
 */
export function toolResult(output: unknown, providerExecuted = false): StructuredResult {
  if (!providerExecuted && isResult(output)) return output
  return typeof output === "string" ? { title: "", output, metadata: {} } : jsonResult(output)
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
