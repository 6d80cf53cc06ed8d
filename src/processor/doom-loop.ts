import type { ToolPart } from "../message/part.js"

/** The permission asked before a repeated call runs; agents' rules decide (build: ask). */
export const DOOM_LOOP_PERMISSION = "doom_loop"

/** Identical calls in a row that count as a loop. */
export const DOOM_LOOP_THRESHOLD = 3

const COUNTS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

/** What the model is told when the `doom_loop` permission is denied for a repeated call. */
export function doomLoopMessage(tool: string, threshold: number = DOOM_LOOP_THRESHOLD): string {
  const times = COUNTS[threshold] ?? String(threshold)
  return `You called the ${tool} tool with the same input ${times} times in a row. Stop repeating this call: it will not give a different result. Try something else (a different tool, different input, or another approach), or explain to the user what is blocking you.`
}

/**
 * Whether `call` completes a run of `threshold` identical calls (same tool, deeply equal input,
 * key order ignored). `recent` holds the current turn's tool parts, oldest first; a part with
 * the call's own `callID` is skipped, so the caller may pass parts that already include it.
 * Parts still pending are skipped too: their input is not final yet.
 */
export function isDoomLoop(
  recent: readonly ToolPart[],
  call: { tool: string; input: Record<string, unknown>; callID?: string },
  threshold: number = DOOM_LOOP_THRESHOLD,
): boolean {
  const needed = threshold - 1
  if (needed <= 0) return true
  const previous = recent
    .filter((part) => part.state.status !== "pending" && part.callID !== call.callID)
    .slice(-needed)
  if (previous.length < needed) return false
  const input = canonicalJSON(call.input)
  return previous.every((part) => part.tool === call.tool && canonicalJSON(part.state.input) === input)
}

/** JSON with object keys sorted at every depth, so `{a, b}` and `{b, a}` compare equal. */
export function canonicalJSON(value: unknown): string {
  return JSON.stringify(sortKeys(value, new Set())) ?? "undefined"
}

function sortKeys(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === "bigint") return value.toString()
  if (typeof value !== "object" || value === null) return value
  const withJSON = value as { toJSON?: unknown }
  if (typeof withJSON.toJSON === "function") return sortKeys(withJSON.toJSON(), ancestors)
  // Tool input comes from parsed JSON and has no cycles; a host-built one must not hang us.
  if (ancestors.has(value)) return "[Circular]"
  ancestors.add(value)
  try {
    if (Array.isArray(value)) return value.map((item) => sortKeys(item, ancestors))
    // fromEntries defines own properties, so a "__proto__" key from JSON stays a plain key.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key], ancestors)]),
    )
  } finally {
    ancestors.delete(value)
  }
}
