import { MAX_BYTES, MAX_LINES } from "../tool/truncate.js"

export const DEFAULT_READ_LIMIT = 2000
export const MAX_LINE_LENGTH = 2000

// Room for the header and the closing note, so the runtime's own truncation never cuts off the
// note that tells the model where to continue.
const LINE_BUDGET = MAX_LINES - 10
const BYTE_BUDGET = MAX_BYTES - 1024

export type TextPage = {
  output: string
  /** The first and last line shown (1-based) and the file's line count. */
  first: number
  last: number
  total: number
  /** Whether lines after `last` were left out. */
  more: boolean
  preview: string
}

/**
 * Lines `offset`.. of a text, numbered like `cat -n` (`00012| text`), each cut at 2,000
 * characters, at most `limit` of them and no more than the runtime would keep, with a closing
 * note that says where the file ends or how to read on.
 */
export function pageOf(text: string, offset: number, limit: number): TextPage | undefined {
  const lines = splitLines(text)
  if (offset > Math.max(lines.length, 1)) return undefined
  const shown: string[] = []
  let bytes = 0
  for (let index = offset - 1; index < lines.length && shown.length < Math.min(limit, LINE_BUDGET); index++) {
    const line = numbered(index + 1, cut(lines[index]!))
    bytes += Buffer.byteLength(line) + 1
    if (bytes > BYTE_BUDGET && shown.length > 0) break
    shown.push(line)
  }
  const last = offset + shown.length - 1
  const more = last < lines.length
  const note = more
    ? `(Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to read on.)`
    : `(End of file - total ${lines.length} lines)`
  const output = ["<file>", ...shown, "", note, "</file>"].join("\n")
  const preview = shown.slice(0, 20).join("\n")
  return { output, first: offset, last, total: lines.length, more, preview }
}

/** Lines of a text: "\n" or "\r\n" ends a line, and a final line break does not start another. */
export function splitLines(text: string): string[] {
  if (text === "") return []
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

function numbered(number: number, line: string): string {
  return `${String(number).padStart(5, "0")}| ${line}`
}

function cut(line: string): string {
  return line.length > MAX_LINE_LENGTH
    ? `${line.slice(0, MAX_LINE_LENGTH)}... (line cut at ${MAX_LINE_LENGTH} characters)`
    : line
}
