export const MAX_LINES = 2_000
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
  const cutLines = lines.length - kept.length
  const cutBytes = totalBytes - Buffer.byteLength(kept.join("\n"))
  const note = `\n\n[Output truncated: ${cutLines} more line(s), ${cutBytes} byte(s) not shown. Narrow the request (a smaller range, a filter) to see the rest.]`
  return { output: kept.join("\n") + note, truncated: true }
}
