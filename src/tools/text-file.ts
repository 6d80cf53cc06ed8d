const BOM = "\uFEFF"

/** A text file as the edit tool works on it: LF lines, with what it must restore on writing. */
export type TextFile = {
  /** The content without a byte-order mark and with every line ending as "\n". */
  text: string
  bom: boolean
  /** The file's line ending; a file that mixes them gets the more common one back. */
  eol: "\n" | "\r\n"
}

/** Decodes UTF-8 strictly (undefined when the bytes are not UTF-8, so nothing is mangled). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
}

export function parseText(content: string): TextFile {
  const bom = content.startsWith(BOM)
  const body = bom ? content.slice(1) : content
  const crlf = body.split("\r\n").length - 1
  const lf = body.split("\n").length - 1 - crlf
  return { text: toLF(body), bom, eol: crlf > lf ? "\r\n" : "\n" }
}

/** The bytes to write back: the original line ending and byte-order mark restored. */
export function formatText(file: TextFile, text: string): string {
  const body = file.eol === "\r\n" ? text.replaceAll("\n", "\r\n") : text
  return file.bom ? BOM + body : body
}

export function toLF(text: string): string {
  return text.replaceAll("\r\n", "\n")
}
