import type { Operations } from "../operations.js"

/** The file's text (a byte order mark dropped); undefined when it cannot be read, e.g. gone since it was found. */
export async function readInstruction(
  operations: Operations,
  file: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const bytes = await operations.readFile(file, signal ? { signal } : {}).catch(() => undefined)
  return bytes === undefined
    ? undefined
    : Buffer.from(bytes)
        .toString("utf8")
        .replace(/^\uFEFF/, "")
}

/**
 * The block a file gives the prompt, headed as OpenCode heads it (`Instructions from: <path>`),
 * its text cut at `limit` bytes with a note saying so; and how many bytes of text it holds.
 */
export function instructionBlock(
  file: string,
  text: string,
  limit: number,
): { block: string; bytes: number } {
  const total = Buffer.byteLength(text)
  if (total <= limit) return { block: `Instructions from: ${file}\n${text}`, bytes: total }
  const kept = cutToBytes(text, limit)
  const note = `[cut at ${formatSize(limit)} of ${formatSize(total)}: read the file for the rest]`
  return { block: `Instructions from: ${file}\n${kept}\n${note}`, bytes: Buffer.byteLength(kept) }
}

/** The longest start of `text` within `limit` UTF-8 bytes that does not split a character. */
export function cutToBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text)
  let end = Math.max(0, limit)
  // Step back over continuation bytes (10xxxxxx) to the start of the character `end` falls in.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString("utf8")
}

/** "400 bytes", "32 KiB", "2.9 KiB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  const kib = bytes / 1024
  return `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KiB`
}
