/** The edit distance between two strings: insertions, deletions and substitutions of one character. */
export function levenshtein(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return Math.max(a.length, b.length)
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}

/** How alike two lines are once trimmed, from 0 (nothing in common) to 1 (equal). */
export function lineSimilarity(a: string, b: string): number {
  const left = a.trim()
  const right = b.trim()
  const longest = Math.max(left.length, right.length)
  return longest === 0 ? 1 : 1 - levenshtein(left, right) / longest
}
