/** Deeper than any row agentloop writes; past it (or at a cycle) the copy is structuredClone's. */
const MAX_DEPTH = 64
const NOT_PLAIN = Symbol("not plain")

/**
 * A deep copy of `value`, the same as `structuredClone(value)` makes. Rows are trees of plain
 * objects, arrays and primitives, which a walk copies many times faster than structuredClone
 * (bench/README.md has the figures): the processor copies each part and its message on every
 * write. Anything else anywhere in the tree (a class instance, a Date, a Map, a
 * function or symbol, a sparse array, a cycle) leaves the whole copy to structuredClone, with
 * its result or its error. (Own keys an array carries beside its items are not copied.)
 */
export function copyPlain<T>(value: T): T {
  const copied = copy(value, 0)
  return copied === NOT_PLAIN ? structuredClone(value) : (copied as T)
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null)
    return typeof value === "function" || typeof value === "symbol" ? NOT_PLAIN : value
  if (depth === MAX_DEPTH) return NOT_PLAIN
  if (Array.isArray(value)) return copyArray(value, depth)
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN
  const source = value as Record<string, unknown>
  const target: Record<string, unknown> = {}
  for (const key of Object.keys(source)) {
    // Assigning it would set the copy's prototype instead of a key.
    if (key === "__proto__") return NOT_PLAIN
    const field = copy(source[key], depth + 1)
    if (field === NOT_PLAIN) return NOT_PLAIN
    target[key] = field
  }
  return target
}

function copyArray(source: unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(source) !== Array.prototype) return NOT_PLAIN
  const target: unknown[] = new Array(source.length)
  for (let index = 0; index < source.length; index++) {
    if (!(index in source)) return NOT_PLAIN
    const item = copy(source[index], depth + 1)
    if (item === NOT_PLAIN) return NOT_PLAIN
    target[index] = item
  }
  return target
}
