const REGEX_SPECIALS = /[.+^${}()|[\]\\]/g

/**
 * Whether `value` matches a wildcard `pattern`: `*` is any run of characters, `?` one
 * character, everything else literal; the whole value must match. Backslashes count as `/`
 * on both sides, so Windows paths match POSIX-style patterns. A pattern ending in " *" also
 * matches the bare command: "ls *" matches "ls" and "ls -la" but not "lstmeval".
 */
export function match(value: string, pattern: string): boolean {
  let source = toSlashes(pattern).replace(REGEX_SPECIALS, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
  return new RegExp(`^${source}$`, "s").test(toSlashes(value))
}

function toSlashes(text: string): string {
  return text.replaceAll("\\", "/")
}
