/** How much of an input an error message quotes. */
const QUOTE_LIMIT = 100

/**
 * `text`, or its first `limit` characters followed by its length: an error message never
 * echoes a huge input (a 10 MB ID) whole.
 */
export function truncate(text: string, limit = QUOTE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`
}

/** A value as an error message shows what it got: short, readable, and never throwing. */
export function quote(value: unknown): string {
  if (typeof value === "string") {
    if (value.length <= QUOTE_LIMIT) return JSON.stringify(value)
    return `${JSON.stringify(value.slice(0, QUOTE_LIMIT))}… (${value.length} characters)`
  }
  if (typeof value === "bigint") return `${value}n`
  if (typeof value === "symbol") return truncate(value.toString())
  if (typeof value === "function") return "a function"
  if (typeof value !== "object" || value === null) return String(value)
  const fallback = Array.isArray(value) ? "an array" : "an object"
  try {
    // Circular, bigint-holding or throwing objects have no JSON text.
    const json: string | undefined = JSON.stringify(value)
    return json === undefined ? fallback : truncate(json)
  } catch {
    return fallback
  }
}
