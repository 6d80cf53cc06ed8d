import { patchFailed } from "./failure.js"
import type { PatchChunk, PatchHunk } from "./parse.js"
import { seekLines } from "./seek.js"

/**
 * Applies an update's chunks to a file's text (LF line endings): each chunk's old lines are
 * sought after the previous chunk's, and after its `@@` context line. The result ends with a
 * newline (unless empty). Throws PatchFailedError "context" or "lines" naming `path` when a
 * chunk does not fit. Pure.
 */
export function applyChunks(text: string, chunks: readonly PatchChunk[], path: string): string {
  const lines = text.split("\n")
  const endsWithNewline = lines.at(-1) === ""
  if (endsWithNewline) lines.pop()
  const replacements: { at: number; length: number; lines: string[] }[] = []
  let cursor = 0
  for (const chunk of chunks) {
    if (chunk.context !== undefined) {
      const found = seekLines(lines, [chunk.context], cursor, false)
      if (found === -1)
        throw patchFailed("context", `could not find the @@ line '${chunk.context}' in ${path}`, path)
      cursor = found + 1
    }
    if (chunk.oldLines.length === 0) {
      replacements.push({ at: lines.length, length: 0, lines: chunk.newLines })
      continue
    }
    const placed = place(lines, chunk, cursor)
    if (!placed)
      throw patchFailed(
        "lines",
        `could not find these lines in ${path} (read the file again and copy them exactly):\n${chunk.oldLines.join("\n")}`,
        path,
      )
    replacements.push(placed)
    cursor = placed.at + placed.length
  }
  const result = [...lines]
  for (const { at, length, lines: added } of replacements.sort((a, b) => b.at - a.at))
    result.splice(at, length, ...added)
  if (endsWithNewline || result.length === 0 || result.at(-1) !== "") result.push("")
  return result.join("\n")
}

/** Where a chunk's old lines are, tried again without a trailing empty line the file may lack. */
function place(lines: readonly string[], chunk: PatchChunk, cursor: number) {
  let old = chunk.oldLines
  let added = chunk.newLines
  let at = seekLines(lines, old, cursor, chunk.endOfFile)
  if (at === -1 && old.at(-1) === "") {
    old = old.slice(0, -1)
    if (added.at(-1) === "") added = added.slice(0, -1)
    at = seekLines(lines, old, cursor, chunk.endOfFile)
  }
  return at === -1 ? undefined : { at, length: old.length, lines: added }
}

/** What one section of a patch does to its file: the text before and after (LF line endings). */
export type PatchedFile = {
  type: "add" | "update" | "delete" | "move"
  path: string
  /** Where a moved file goes. */
  movePath?: string
  /** The text before ("" for a new file). */
  before: string
  /** The text after ("" for a deleted file). */
  after: string
}

/** The files a patch applies to: their text now (undefined when absent), and which paths are one file. */
export type PatchFiles = {
  read(path: string): string | undefined
  /** The same for two spellings of one file (say, case folded); default: the path itself. */
  key?(path: string): string
}

/**
 * Applies a patch's sections in turn, each to what the previous left, without touching a file:
 * what each section does, and the final text of every path the patch touches (undefined: the
 * file is removed), keyed by its first spelling. Throws PatchFailedError when a section does not fit.
 */
export function applyHunks(hunks: readonly PatchHunk[], files: PatchFiles) {
  const key = files.key ?? ((path: string) => path)
  const final = new Map<string, { path: string; text: string | undefined }>()
  const read = (path: string) => {
    const known = final.get(key(path))
    return known ? known.text : files.read(path)
  }
  const set = (path: string, text: string | undefined) => {
    const known = final.get(key(path))
    final.set(key(path), { path: known?.path ?? path, text })
  }
  const patched: PatchedFile[] = []
  for (const hunk of hunks) {
    const before = read(hunk.path)
    if (hunk.type === "add") {
      set(hunk.path, hunk.content)
      patched.push({ type: "add", path: hunk.path, before: before ?? "", after: hunk.content })
      continue
    }
    if (before === undefined)
      throw patchFailed("missing-file", `cannot ${hunk.type} ${hunk.path}: there is no such file`, hunk.path)
    if (hunk.type === "delete") {
      set(hunk.path, undefined)
      patched.push({ type: "delete", path: hunk.path, before, after: "" })
      continue
    }
    const after = applyChunks(before, hunk.chunks, hunk.path)
    const movePath = hunk.movePath
    if (movePath === undefined || key(movePath) === key(hunk.path)) {
      set(movePath ?? hunk.path, after)
      patched.push({ type: "update", path: hunk.path, before, after })
    } else {
      set(movePath, after)
      set(hunk.path, undefined)
      patched.push({ type: "move", path: hunk.path, movePath, before, after })
    }
  }
  return { files: patched, final: new Map([...final.values()].map(({ path, text }) => [path, text])) }
}
