import type { ToolStateCompleted } from "../message/part.js"
import type { ExecuteResult, Result } from "./tool.js"

/**
 * A result on its way to storage. `structured` is the JSON value the tool returned, kept while
 * the output is exactly its JSON text, so that the model can be sent the value itself.
 */
export type StructuredResult = Result & { structured?: ToolStateCompleted["structured"] }

const FULL_FORM_KEYS: ReadonlySet<string> = new Set(["title", "output", "metadata", "attachments"])

/** What `execute` returned as a result: text as it is, the full form completed, JSON as its text. */
export function toResult(value: ExecuteResult): StructuredResult {
  if (typeof value === "string") return { title: "", output: value, metadata: {} }
  if (isFullForm(value)) {
    const { title, output, metadata, attachments } = value
    return {
      title: title ?? "",
      output,
      metadata: metadata ?? {},
      ...(attachments === undefined ? {} : { attachments }),
    }
  }
  return jsonResult(value)
}

/**
 * A JSON value as a result: its text, and the value as that text reads back, so what is stored
 * and sent is plain JSON (no `undefined` members, a date as its string), exactly the text.
 */
export function jsonResult(value: unknown): StructuredResult {
  const output = JSON.stringify(value ?? null)
  return { title: "", output, metadata: {}, structured: JSON.parse(output) }
}

/** The rule `Tool.ExecuteResult` documents: only the four keys, each of its own type, `output` present. */
function isFullForm(value: ExecuteResult): value is Extract<ExecuteResult, { output: string }> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const object = value as Record<string, unknown>
  if (typeof object.output !== "string") return false
  if (Object.keys(object).some((key) => !FULL_FORM_KEYS.has(key))) return false
  const { title, metadata, attachments } = object
  return (
    (title === undefined || typeof title === "string") &&
    (metadata === undefined ||
      (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata))) &&
    (attachments === undefined || Array.isArray(attachments))
  )
}
