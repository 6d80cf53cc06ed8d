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

/**
 * A reader of `-z` output arriving in chunks, for a process that answers as it goes: calls
 * `onRecord` with each run of `size` entries as soon as the run is whole.
 */
export function nulRecords(size: number, onRecord: (entries: string[]) => void): (chunk: Buffer) => void {
  let entries: string[] = []
  let rest = Buffer.alloc(0)
  return (chunk) => {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk
    let start = 0
    for (let end = data.indexOf(0); end !== -1; end = data.indexOf(0, start)) {
      entries.push(data.toString("utf8", start, end))
      start = end + 1
      if (entries.length < size) continue
      onRecord(entries)
      entries = []
    }
    rest = Buffer.from(data.subarray(start))
  }
}
