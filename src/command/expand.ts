// `$1`, `$2`, … `$10` (a whole number: `$10` is never `$1` then "0"); `$0` and `$01` are text.
const POSITIONAL = /\$([1-9]\d*)/g
const ARGUMENTS = "$ARGUMENTS"

/**
 * A command's template with its arguments filled in. Pure; the rules follow OpenCode's:
 *
 * - `$1..$n` are the words of `args` (see `words`: quotes group, and are dropped);
 * - the highest placeholder the template uses takes that word and all after it, joined by
 *   single spaces, so the last parameter can be free text;
 * - a placeholder without a word becomes "";
 * - `$ARGUMENTS` is the whole argument string, trimmed, quotes and all;
 * - a template with no placeholder at all gets non-empty arguments appended after a blank
 *   line, so arguments are never lost;
 * - the result is trimmed (templates often come from files ending in a newline).
 *
 * Everything is replaced in one pass, so an argument that itself reads `$1` or `$ARGUMENTS`
 * is kept as written.
 */
export function expand(template: string, args: string): string {
  const all = args.trim()
  const positional = words(all)
  const highest = highestPlaceholder(template)
  const pattern = new RegExp(`\\$ARGUMENTS|${POSITIONAL.source}`, "g")
  const expanded = template.replace(pattern, (_match, digits: string | undefined) => {
    if (digits === undefined) return all
    const index = Number(digits) - 1
    if (index >= positional.length) return ""
    return Number(digits) === highest ? positional.slice(index).join(" ") : (positional[index] ?? "")
  })
  const hasPlaceholder = highest > 0 || template.includes(ARGUMENTS)
  if (!hasPlaceholder && all !== "") return `${expanded.trim()}\n\n${all}`
  return expanded.trim()
}

/** The highest `$n` in the template; 0 when it has none. */
function highestPlaceholder(template: string): number {
  let highest = 0
  for (const match of template.matchAll(POSITIONAL)) highest = Math.max(highest, Number(match[1]))
  return highest
}

/**
 * The words of a command's argument string, split on whitespace as a shell would: a "double"
 * or 'single' quoted stretch keeps its spaces and loses its quotes, so `"two words"` is one
 * word and `""` an empty one. An unclosed quote runs to the end of the string.
 */
export function words(text: string): string[] {
  const result: string[] = []
  let word = ""
  // A word that so far is only an empty quote ("") still counts as a word.
  let started = false
  let quote: string | undefined
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === '"' || char === "'") {
      quote = char
      started = true
    } else if (/\s/.test(char)) {
      if (started) result.push(word)
      word = ""
      started = false
    } else {
      word += char
      started = true
    }
  }
  if (started) result.push(word)
  return result
}
