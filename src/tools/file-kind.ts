import * as path from "node:path"

// Formats that are never text, whatever their first bytes look like.
const BINARY_EXTENSIONS = new Set(
  (
    ".zip .tar .gz .tgz .bz2 .xz .7z .rar .jar .war .class .exe .dll .so .dylib .o .a .lib .obj " +
    ".bin .dat .wasm .pyc .pyo .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp .sqlite .db " +
    ".ico .bmp .tiff .mp3 .mp4 .mov .avi .mkv .wav .flac .ogg .woff .woff2 .ttf .otf .eot"
  ).split(" "),
)

/** Files a model can take as an attachment, by extension. */
const MEDIA_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
}

const SAMPLE_BYTES = 4096
// Text has some control characters (tabs, form feeds, ANSI colours), never this many.
const CONTROL_RATIO = 0.3

/** The media type of an image or PDF the read tool returns as an attachment, if the file is one. */
export function mediaTypeOf(file: string): string | undefined {
  return MEDIA_TYPES[path.extname(file).toLowerCase()]
}

/**
 * Whether the bytes are not text: a known binary extension, a NUL byte in the first 4 KB, or
 * a sample where control characters other than whitespace are common.
 */
export function isBinary(file: string, bytes: Uint8Array): boolean {
  if (BINARY_EXTENSIONS.has(path.extname(file).toLowerCase())) return true
  const sample = bytes.subarray(0, SAMPLE_BYTES)
  if (sample.length === 0) return false
  let control = 0
  for (const byte of sample) {
    if (byte === 0) return true
    if (byte < 9 || (byte > 13 && byte < 32)) control++
  }
  return control / sample.length > CONTROL_RATIO
}
