import { REPLACERS, type Replacer } from "./replacers.js"

export type Replacement = {
  content: string
  /** How many places were replaced. */
  count: number
  /** The replacer that found the text: "exact", or the tolerant one that did. */
  matcher: string
}

/** Why a replacement failed: the text is nowhere, or in several places and `replaceAll` was not set. */
export type ReplaceFailure = { failed: "not-found" | "ambiguous" }

/**
 * Replaces `find` in `content`, trying each replacer in turn. A candidate found in exactly one
 * place is replaced; one found in several places is skipped (unless `replaceAll`), as a later,
 * more precise candidate may still be unique. Nothing unique found: `ambiguous` when something
 * matched several places, `not-found` otherwise.
 */
export function replace(
  content: string,
  find: string,
  replacement: string,
  replaceAll = false,
  replacers: readonly Replacer[] = REPLACERS,
): Replacement | ReplaceFailure {
  let matched = false
  for (const replacer of replacers) {
    for (const search of replacer.find(content, find)) {
      const first = content.indexOf(search)
      if (search === "" || first === -1) continue
      matched = true
      const text = replacer.lineBased ? reindent(replacement, find, search) : replacement
      if (replaceAll) {
        const parts = content.split(search)
        return { content: parts.join(text), count: parts.length - 1, matcher: replacer.name }
      }
      if (content.indexOf(search, first + 1) !== -1) continue
      const next = content.slice(0, first) + text + content.slice(first + search.length)
      return { content: next, count: 1, matcher: replacer.name }
    }
  }
  return { failed: matched ? "ambiguous" : "not-found" }
}

/**
 * A model that quotes a block with the wrong indentation usually writes its replacement with
 * the same wrong indentation. The quoted lines that matched tell how the quote's indentation
 * maps to the file's (the same shift throughout, or the same scale, e.g. two spaces a level
 * where the file uses four); the replacement's lines are mapped likewise. When the mapping is
 * inconsistent, or a replacement line falls outside it, the replacement is left as written.
 */
export function reindent(replacement: string, find: string, found: string): string {
  const mapping = indentMapping(find.split("\n"), found.split("\n"))
  if (!mapping || [...mapping].every(([from, to]) => from === to)) return replacement
  const rule = shiftRule(mapping) ?? scaleRule(mapping)
  const lines = replacement.split("\n").map((line) => {
    if (line.trim() === "") return line
    const indent = indentOf(line)
    const mapped = mapping.get(indent) ?? rule?.(indent)
    return mapped === undefined ? undefined : mapped + line.slice(indent.length)
  })
  return lines.some((line) => line === undefined) ? replacement : lines.join("\n")
}

/** Quoted indentation to the file's, from the lines whose text is equal; undefined when they disagree. */
function indentMapping(quoted: string[], actual: string[]): Map<string, string> | undefined {
  const mapping = new Map<string, string>()
  for (let index = 0; index < Math.min(quoted.length, actual.length); index++) {
    const want = quoted[index]!
    const have = actual[index]!
    if (want.trim() === "" || want.trim() !== have.trim()) continue
    const known = mapping.get(indentOf(want))
    if (known !== undefined && known !== indentOf(have)) return undefined
    mapping.set(indentOf(want), indentOf(have))
  }
  return mapping
}

/** The same whitespace added to (or the same count removed from) every quoted indentation. */
function shiftRule(mapping: Map<string, string>): ((indent: string) => string | undefined) | undefined {
  const pairs = [...mapping]
  const [from, to] = pairs[0]!
  if (to.startsWith(from)) {
    const extra = to.slice(from.length)
    if (pairs.every(([key, value]) => value === extra + key)) return (indent) => extra + indent
  }
  if (from.startsWith(to)) {
    const removed = from.length - to.length
    if (pairs.every(([key, value]) => key.length - removed === value.length && key.endsWith(value)))
      return (indent) => (indent.length >= removed ? indent.slice(removed) : undefined)
  }
  return undefined
}

/** Spaces multiplied by the same factor: two a level quoted where the file has four. */
function scaleRule(mapping: Map<string, string>): ((indent: string) => string | undefined) | undefined {
  const pairs = [...mapping].filter(([key]) => key !== "")
  if (pairs.length === 0 || [...mapping].some(([key, value]) => /[^ ]/.test(key + value))) return undefined
  const factor = pairs[0]![1].length / pairs[0]![0].length
  if (!pairs.every(([key, value]) => value.length === key.length * factor)) return undefined
  if (mapping.get("") !== undefined && mapping.get("") !== "") return undefined
  return (indent) => (/[^ ]/.test(indent) ? undefined : " ".repeat(indent.length * factor))
}

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0]
}
