/**
 * The entries of git's `-z` output: NUL-terminated, so names with newlines, quotes or
 * non-ASCII characters come through verbatim. A trailing empty entry is dropped.
 */
export function splitNul(output: Buffer): string[] {
  const entries = output.toString("utf8").split("\0")
  if (entries.at(-1) === "") entries.pop()
  return entries
}

/** NUL-joined entries for `--pathspec-from-file=- --pathspec-file-nul`. */
export function joinNul(entries: readonly string[]): string {
  return entries.map((entry) => `${entry}\0`).join("")
}
