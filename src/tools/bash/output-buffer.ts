// Kept in memory while a command runs, for the file that holds the full output; past this, the
// oldest output goes (a runaway `yes` must not take the host's memory).
export const KEEP_BYTES = 32 * 1024 * 1024

/** A command's output as it arrives: all of it (up to `keepBytes`), and its end on demand. */
export function createOutputBuffer(keepBytes = KEEP_BYTES) {
  const chunks: { text: string; bytes: number }[] = []
  let first = 0
  let kept = 0
  let dropped = 0

  return {
    append(text: string) {
      const bytes = Buffer.byteLength(text)
      chunks.push({ text, bytes })
      kept += bytes
      while (kept > keepBytes && first < chunks.length - 1) {
        const oldest = chunks[first]!
        chunks[first] = { text: "", bytes: 0 }
        first++
        kept -= oldest.bytes
        dropped += oldest.bytes
      }
      // Forget the emptied slots now and then, so the array does not grow without end.
      if (first > 1024 && first * 2 > chunks.length) {
        chunks.splice(0, first)
        first = 0
      }
    },

    /** Everything kept, in order. */
    text(): string {
      return chunks
        .slice(first)
        .map((chunk) => chunk.text)
        .join("")
    },

    /** The last `maxBytes` bytes or so (whole characters), cheap to take while output streams. */
    tail(maxBytes: number): string {
      const picked: string[] = []
      let bytes = 0
      for (let index = chunks.length - 1; index >= first && bytes < maxBytes; index--) {
        picked.push(chunks[index]!.text)
        bytes += chunks[index]!.bytes
      }
      return tailBytes(picked.reverse().join(""), maxBytes)
    },

    /** Bytes of output dropped from the start to stay within `keepBytes`. */
    get droppedBytes() {
      return dropped
    },
  }
}

export type OutputBuffer = ReturnType<typeof createOutputBuffer>

/** The longest end of `text` within `maxBytes` UTF-8 bytes, not splitting a character. */
export function tailBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text)
  if (bytes.length <= maxBytes) return text
  let start = bytes.length - maxBytes
  // 10xxxxxx bytes continue a character: starting on one would split that character.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return bytes.subarray(start).toString()
}

/**
 * The end of `text` that fits `maxLines` lines and `maxBytes` bytes, cut at a line start when
 * it can be (the end of a build log is where its errors are), with how many lines were left out.
 */
export function tailOf(text: string, limits: { maxLines: number; maxBytes: number }) {
  const lines = text.split("\n")
  if (lines.length <= limits.maxLines && Buffer.byteLength(text) <= limits.maxBytes)
    return { text, truncated: false, omittedLines: 0 }
  let shown = lines.slice(-limits.maxLines).join("\n")
  if (Buffer.byteLength(shown) > limits.maxBytes) {
    const cut = tailBytes(shown, limits.maxBytes)
    const lineStart = cut.indexOf("\n")
    // Start on a whole line unless the last line alone is over the limit.
    shown = lineStart >= 0 && lineStart < cut.length - 1 ? cut.slice(lineStart + 1) : cut
  }
  const shownLines = shown.split("\n").length
  return { text: shown, truncated: true, omittedLines: lines.length - shownLines }
}
