import { InvalidPatternError } from "./errors.js"

/** One matching line, as both searches report it. */
export type GrepMatch = {
  /** Path relative to the searched directory, with "/". */
  file: string
  /** Line number, 1-based. */
  line: number
  text: string
}

export type GrepSearch = {
  pattern: string
  include?: string | undefined
  /** Where to run: the searched directory (or a file's directory). */
  cwd: string
  /** What to search under `cwd`: "." or a file's name. */
  target: string
  signal: AbortSignal
}

/** What a search found: the matches kept (at most `MAX_KEPT`) and how many there were in all. */
export type GrepFindings = { matches: GrepMatch[]; total: number }

// Matches kept for sorting; a search finding more is far too broad for the model anyway.
export const MAX_KEPT = 5000

/**
 * The pattern as a JavaScript RegExp. A leading `(?i)`, which ripgrep understands and JavaScript
 * does not, becomes the `i` flag, so the same pattern works whichever search runs.
 */
export function toRegExp(pattern: string): RegExp {
  const insensitive = pattern.startsWith("(?i)")
  try {
    return new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? "i" : "")
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new InvalidPatternError({ message: `Invalid regular expression: ${detail}`, pattern })
  }
}

/** Include globs without a "/" match file names at any depth, as ripgrep's --glob does. */
export function includeGlob(include: string | undefined): string {
  if (!include) return "**/*"
  return include.includes("/") ? include : `**/${include}`
}
