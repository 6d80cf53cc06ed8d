/**
 * The smallest string above every string starting with `prefix`, so a prefix listing is an
 * index range: bump the last code point (SQLite compares UTF-8 bytes, which order as code
 * points do). Undefined when no such string exists (empty prefix, or only U+10FFFF).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix]
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!
    if (last < 0x10ffff) {
      // Skip the surrogate range, which is not a valid code point on its own.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1
      return points.join("") + String.fromCodePoint(next)
    }
  }
  return undefined
}
