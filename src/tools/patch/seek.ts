type Compare = (line: string, wanted: string) => boolean

/**
 * How lines may match, tried in turn over the whole file before the next is tried: exactly, then
 * ignoring trailing whitespace, then surrounding whitespace, then with typographic punctuation
 * read as ASCII (as OpenCode and Codex seek).
 */
const PASSES: Compare[] = [
  (line, wanted) => line === wanted,
  (line, wanted) => line.trimEnd() === wanted.trimEnd(),
  (line, wanted) => line.trim() === wanted.trim(),
  (line, wanted) => asciiPunctuation(line.trim()) === asciiPunctuation(wanted.trim()),
]

/**
 * Where `pattern` occurs in `lines` at or after `from`, or -1. With `endOfFile`, a match that
 * ends the file is preferred.
 */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  from: number,
  endOfFile: boolean,
) {
  if (pattern.length === 0) return -1
  for (const compare of PASSES) {
    const found = seekWith(lines, pattern, from, endOfFile, compare)
    if (found !== -1) return found
  }
  return -1
}

function seekWith(
  lines: readonly string[],
  pattern: readonly string[],
  from: number,
  endOfFile: boolean,
  compare: Compare,
): number {
  const matchesAt = (start: number) =>
    pattern.every((wanted, offset) => compare(lines[start + offset]!, wanted))
  const last = lines.length - pattern.length
  if (endOfFile && last >= from && matchesAt(last)) return last
  for (let start = from; start <= last; start++) if (matchesAt(start)) return start
  return -1
}

/** Curly quotes, dashes, the ellipsis and non-breaking spaces as the ASCII a model tends to type. */
function asciiPunctuation(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2010\u2011\u2012\u2013\u2014\u2015]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/\u00A0/g, " ")
}
