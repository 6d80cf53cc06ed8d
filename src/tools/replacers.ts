import { lineSimilarity } from "./similarity.js"

/**
 * One way of finding the text a model meant by `oldString`: yields stretches of `content` to
 * replace. Models quote code with the wrong indentation, trailing spaces, escaped newlines or a
 * slightly wrong middle line; each replacer forgives one such slip. The ideas are OpenCode's
 * (after Cline and Gemini CLI); `replace` tries them in the order of `REPLACERS`.
 */
export type Replacer = {
  name: string
  /** Whether a match may differ in indentation, so the replacement's indentation is adjusted too. */
  lineBased: boolean
  find(content: string, find: string): Iterable<string>
}

// Anchors alone decide when only one block fits; among several, the middle must look alike.
const SINGLE_CANDIDATE_SIMILARITY = 0
const MULTIPLE_CANDIDATES_SIMILARITY = 0.3
// Context matching wants at least half of the middle lines equal once trimmed.
const CONTEXT_MATCH_RATIO = 0.5

/** The find string exactly as given. */
export const simple: Replacer = {
  name: "exact",
  lineBased: false,
  *find(_content, find) {
    yield find
  },
}

/** Line by line, ignoring each line's leading and trailing whitespace. */
export const lineTrimmed: Replacer = {
  name: "line-trimmed",
  lineBased: true,
  *find(content, find) {
    const lines = content.split("\n")
    const wanted = withoutTrailingEmpty(find.split("\n")).map((line) => line.trim())
    for (let start = 0; start + wanted.length <= lines.length; start++) {
      if (wanted.every((line, offset) => lines[start + offset]!.trim() === line))
        yield lines.slice(start, start + wanted.length).join("\n")
    }
  },
}

/**
 * Blocks of three or more lines whose first and last lines match (trimmed): the middle may
 * differ, the model having misremembered it. One candidate is taken on its anchors; among
 * several, the one whose middle lines are most alike wins if alike enough.
 */
export const blockAnchor: Replacer = {
  name: "block-anchor",
  lineBased: true,
  *find(content, find) {
    const wanted = withoutTrailingEmpty(find.split("\n"))
    if (wanted.length < 3) return
    const lines = content.split("\n")
    const candidates = anchoredBlocks(lines, wanted)
    const threshold = candidates.length === 1 ? SINGLE_CANDIDATE_SIMILARITY : MULTIPLE_CANDIDATES_SIMILARITY
    let best: { start: number; end: number; score: number } | undefined
    for (const candidate of candidates) {
      const score = middleSimilarity(lines.slice(candidate.start, candidate.end + 1), wanted)
      if (!best || score > best.score) best = { ...candidate, score }
    }
    if (best && best.score >= threshold) yield lines.slice(best.start, best.end + 1).join("\n")
  },
}

/** Runs of whitespace counted as one space, within a line or across a block of lines. */
export const whitespaceNormalized: Replacer = {
  name: "whitespace-normalized",
  lineBased: false,
  *find(content, find) {
    const wanted = collapse(find)
    if (wanted === "") return
    const lines = content.split("\n")
    for (const line of lines) {
      if (collapse(line) === wanted) yield line
      else if (collapse(line).includes(wanted)) {
        const words = find.trim().split(/\s+/).map(escapeRegExp)
        const found = line.match(new RegExp(words.join("\\s+")))
        if (found) yield found[0]
      }
    }
    const count = find.split("\n").length
    if (count < 2) return
    for (let start = 0; start + count <= lines.length; start++) {
      const block = lines.slice(start, start + count).join("\n")
      if (collapse(block) === wanted) yield block
    }
  },
}

/** The same block indented differently as a whole (relative indentation kept). */
export const indentationFlexible: Replacer = {
  name: "indentation-flexible",
  lineBased: true,
  *find(content, find) {
    const wanted = dedent(find)
    const lines = content.split("\n")
    const count = find.split("\n").length
    for (let start = 0; start + count <= lines.length; start++) {
      const block = lines.slice(start, start + count).join("\n")
      if (dedent(block) === wanted) yield block
    }
  },
}

/** Escapes the model wrote literally (`\n`, `\t`, `\"`) read as the characters they stand for. */
export const escapeNormalized: Replacer = {
  name: "escape-normalized",
  lineBased: false,
  *find(content, find) {
    const wanted = unescapeText(find)
    if (wanted !== find && content.includes(wanted)) yield wanted
    const lines = content.split("\n")
    const count = wanted.split("\n").length
    for (let start = 0; start + count <= lines.length; start++) {
      const block = lines.slice(start, start + count).join("\n")
      if (block !== wanted && unescapeText(block) === wanted) yield block
    }
  },
}

/** The find string without the blank space the model left around it. */
export const trimmedBoundary: Replacer = {
  name: "trimmed-boundary",
  lineBased: false,
  *find(content, find) {
    const trimmed = find.trim()
    if (trimmed === find || trimmed === "") return
    if (content.includes(trimmed)) yield trimmed
    const lines = content.split("\n")
    const count = find.split("\n").length
    for (let start = 0; start + count <= lines.length; start++) {
      const block = lines.slice(start, start + count).join("\n")
      if (block.trim() === trimmed) yield block
    }
  },
}

/**
 * Blocks of the same length with matching first and last lines where at least half of the
 * middle lines are equal once trimmed: the first such block.
 */
export const contextAware: Replacer = {
  name: "context-aware",
  lineBased: true,
  *find(content, find) {
    const wanted = withoutTrailingEmpty(find.split("\n"))
    if (wanted.length < 3) return
    const lines = content.split("\n")
    for (const { start, end } of anchoredBlocks(lines, wanted)) {
      const block = lines.slice(start, end + 1)
      if (block.length !== wanted.length) continue
      const middle = block.slice(1, -1).map((line, index) => [line.trim(), wanted[index + 1]!.trim()])
      const compared = middle.filter(([have, want]) => have !== "" || want !== "")
      const equal = compared.filter(([have, want]) => have === want).length
      if (compared.length === 0 || equal / compared.length >= CONTEXT_MATCH_RATIO) {
        yield block.join("\n")
        return
      }
    }
  },
}

/** Every exact occurrence, for `replaceAll`. */
export const multiOccurrence: Replacer = {
  name: "multi-occurrence",
  lineBased: false,
  *find(content, find) {
    if (find === "") return
    for (let index = content.indexOf(find); index !== -1; index = content.indexOf(find, index + find.length))
      yield find
  },
}

/** The order replacers are tried in: the strictest first, so a looser one only fills a gap. */
export const REPLACERS: readonly Replacer[] = [
  simple,
  lineTrimmed,
  blockAnchor,
  whitespaceNormalized,
  indentationFlexible,
  escapeNormalized,
  trimmedBoundary,
  contextAware,
  multiOccurrence,
]

/** For each line matching the first wanted line, the nearest later line (two or more down) matching the last. */
function anchoredBlocks(lines: string[], wanted: string[]): { start: number; end: number }[] {
  const first = wanted[0]!.trim()
  const last = wanted[wanted.length - 1]!.trim()
  const blocks: { start: number; end: number }[] = []
  for (let start = 0; start < lines.length; start++) {
    if (lines[start]!.trim() !== first) continue
    for (let end = start + 2; end < lines.length; end++) {
      if (lines[end]!.trim() !== last) continue
      blocks.push({ start, end })
      break
    }
  }
  return blocks
}

/** The mean likeness of the middle lines both blocks have; 1 when there are none to compare. */
function middleSimilarity(block: string[], wanted: string[]): number {
  const count = Math.min(block.length, wanted.length) - 2
  if (count <= 0) return 1
  let total = 0
  for (let index = 1; index <= count; index++) total += lineSimilarity(block[index]!, wanted[index]!)
  return total / count
}

function withoutTrailingEmpty(lines: string[]): string[] {
  return lines.length > 1 && lines[lines.length - 1] === "" ? lines.slice(0, -1) : lines
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim()
}

/** The text with the indentation its non-blank lines share removed. */
export function dedent(text: string): string {
  const lines = text.split("\n")
  const indent = commonIndent(lines)
  return lines.map((line) => (line.trim() === "" ? line : line.slice(indent.length))).join("\n")
}

/** The longest leading whitespace every non-blank line starts with. */
export function commonIndent(lines: readonly string[]): string {
  let indent: string | undefined
  for (const line of lines) {
    if (line.trim() === "") continue
    const own = /^[ \t]*/.exec(line)![0]
    if (indent === undefined) indent = own
    else while (!own.startsWith(indent)) indent = indent.slice(0, -1)
  }
  return indent ?? ""
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\n": "\n" }

function unescapeText(text: string): string {
  return text.replace(/\\(n|t|r|'|"|`|\\|\n|\$)/g, (_, char: string) => ESCAPES[char] ?? char)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}
