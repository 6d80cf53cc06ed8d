/** Lines of a tool's output kept by default before `truncateOutput` cuts the rest. */
export const MAX_LINES = 2_000
/** Bytes of a tool's output kept by default before `truncateOutput` cuts the rest. */
export const MAX_BYTES = 50 * 1024

/**
 * Cuts a tool output that would flood the context: at most `maxLines` lines and `maxBytes`
 * UTF-8 bytes are kept, and a note says how much was cut so the model can ask for less.
 */
export function truncateOutput(
  output: string,
  limits: { maxLines?: number; maxBytes?: number } = {},
): { output: string; truncated: boolean } {
  const maxLines = limits.maxLines ?? MAX_LINES
  const maxBytes = limits.maxBytes ?? MAX_BYTES
  const totalBytes = Buffer.byteLength(output)
  const lines = output.split("\n")
  if (lines.length <= maxLines && totalBytes <= maxBytes) return { output, truncated: false }

  const kept: string[] = []
  let bytes = 0
  for (const line of lines.slice(0, maxLines)) {
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > maxBytes) break
    kept.push(line)
    bytes += size
  }
  // A first line over the budget (minified JSON, a base64 blob) would leave nothing to show:
  // keep its head instead, so the model still sees what kind of output it got.
  const partial = kept.length === 0 && maxLines > 0 ? headBytes(lines[0]!, maxBytes) : undefined
  const shown = partial ?? kept.join("\n")
  const cutLines = lines.length - kept.length - (partial === undefined ? 0 : 1)
  const cutBytes = totalBytes - Buffer.byteLength(shown)
  const note = `\n\n[Output truncated: ${cutLines} more line(s), ${cutBytes} byte(s) not shown. Narrow the request (a smaller range, a filter) to see the rest.]`
  return { output: shown + note, truncated: true }
}

/** The longest start of `text` that fits `maxBytes` UTF-8 bytes without splitting a character. */
function headBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text)
  let end = Math.min(maxBytes, bytes.length)
  // 10xxxxxx bytes continue a character: cutting before one would split that character.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString()
}
