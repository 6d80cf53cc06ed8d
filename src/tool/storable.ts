/**
 * Where a value stops being JSON that storage can keep (a BigInt, a function, a symbol, a cycle,
 * undefined in an array, a number that is not finite), as a readable path such as
 * `metadata.size is a BigInt`; undefined when the whole value can be stored.
 */
export function unstorable(value: unknown, path: string, seen = new Set<object>()): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined
    case "number":
      return Number.isFinite(value) ? undefined : `${path} is ${value}`
    case "bigint":
      return `${path} is a BigInt`
    case "function":
      return `${path} is a function`
    case "symbol":
      return `${path} is a symbol`
    case "undefined":
      return `${path} is undefined`
  }
  if (value === null) return undefined
  const object = value as object
  if (seen.has(object)) return `${path} refers back to itself`
  seen.add(object)
  try {
    if (Array.isArray(object)) {
      for (const [index, item] of object.entries()) {
        const problem = unstorable(item, `${path}[${index}]`, seen)
        if (problem) return problem
      }
      return undefined
    }
    for (const [key, item] of Object.entries(object)) {
      // JSON leaves out undefined properties, as storage does.
      if (item === undefined) continue
      const problem = unstorable(item, `${path}.${key}`, seen)
      if (problem) return problem
    }
    return undefined
  } finally {
    seen.delete(object)
  }
}
