import { InvalidInputError } from "../error/invalid-input.js"

/**
 * The JSON text of a row or value, which the adapters store: what JSON.stringify cannot encode
 * (a BigInt, a circular reference) is refused with an InvalidInputError naming where it is, while
 * the batch is validated, not a plain TypeError in the middle of applying it. Only what throws is
 * refused; what JSON drops or turns into null (undefined, functions, NaN) is stored as JSON stores
 * it. The schemas cannot say this: metadata is `unknown`, and `z.json()` accepts a cycle.
 */
export function encodeJson(value: unknown, path: string): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    const problem = unencodable(value, path, new Set()) ?? { path, message: "cannot be encoded as JSON" }
    throw new InvalidInputError(
      { message: `Invalid ${problem.path}: ${problem.message}`, issues: [problem] },
      { cause: error },
    )
  }
}

type Problem = { path: string; message: string }

/** The first BigInt or cycle, found as JSON.stringify walks (through `toJSON`); `ancestors` holds the objects above. */
function unencodable(value: unknown, path: string, ancestors: Set<object>): Problem | undefined {
  const encoded = hasToJSON(value) ? value.toJSON() : value
  if (typeof encoded === "bigint") return { path, message: "is a BigInt, which JSON cannot hold" }
  if (typeof encoded !== "object" || encoded === null) return undefined
  if (ancestors.has(encoded)) return { path, message: "refers back to itself (a circular reference)" }
  ancestors.add(encoded)
  try {
    const entries = Array.isArray(encoded)
      ? encoded.map((item, index) => [`${path}[${index}]`, item] as const)
      : Object.entries(encoded).map(([key, item]) => [`${path}.${key}`, item] as const)
    for (const [at, item] of entries) {
      const problem = unencodable(item, at, ancestors)
      if (problem) return problem
    }
    return undefined
  } finally {
    ancestors.delete(encoded)
  }
}

function hasToJSON(value: unknown): value is { toJSON(): unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  )
}
