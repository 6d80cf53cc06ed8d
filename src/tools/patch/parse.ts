import { toLF } from "../text-file.js"
import { patchFailed } from "./failure.js"

/**
 * One change within an updated file: `oldLines` (context and removed lines) are found in the
 * file, after the `context` line when there is one, and replaced by `newLines` (context and
 * added lines). `endOfFile`: the old lines are sought at the end of the file first.
 */
export type PatchChunk = {
  /** The line after `@@`: a line of the file (a function's header, say) that comes before the change. */
  context?: string
  oldLines: string[]
  newLines: string[]
  endOfFile: boolean
}

/** One file's section of a patch: a new file and its content, a deletion, or an update (perhaps a move). */
export type PatchHunk =
  | { type: "add"; path: string; content: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; movePath?: string; chunks: PatchChunk[] }

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File:"
const DELETE = "*** Delete File:"
const UPDATE = "*** Update File:"
const MOVE = "*** Move to:"
const END_OF_FILE = "*** End of File"

/**
 * Reads a patch in OpenCode's (and Codex's) format: `*** Begin Patch`, file sections, `*** End
 * Patch`, perhaps wrapped in a shell heredoc. Throws PatchFailedError ("parse", "empty") when it
 * is not one. Pure: paths are returned as written.
 */
export function parsePatch(text: string): PatchHunk[] {
  const lines = stripHeredoc(toLF(text).trim()).split("\n")
  const begin = lines.findIndex((line) => line.trim() === BEGIN)
  const end = lines.findIndex((line, index) => index > begin && line.trim() === END)
  if (begin === -1 || end === -1)
    throw patchFailed("parse", `the patch must start with "${BEGIN}" and end with "${END}"`)
  const hunks: PatchHunk[] = []
  let index = begin + 1
  while (index < end) {
    const line = lines[index]!
    if (line.startsWith(ADD)) {
      const path = pathOf(line, ADD)
      const added = readAdded(lines, index + 1, end)
      hunks.push({ type: "add", path, content: added.content })
      index = added.next
    } else if (line.startsWith(DELETE)) {
      hunks.push({ type: "delete", path: pathOf(line, DELETE) })
      index++
    } else if (line.startsWith(UPDATE)) {
      const updated = readUpdate(lines, index, end)
      hunks.push(updated.hunk)
      index = updated.next
    } else index++
  }
  if (hunks.length === 0) {
    const detail = lines.slice(begin + 1, end).some((line) => line.trim() !== "")
      ? `the patch names no file: each section starts with "${ADD} <path>", "${UPDATE} <path>" or "${DELETE} <path>"`
      : "the patch is empty"
    throw patchFailed("empty", detail)
  }
  return hunks
}

/** The patch inside `cat <<'EOF' … EOF` (or `<<EOF`), as a model may wrap it from habit. */
function stripHeredoc(text: string): string {
  const heredoc = /^(?:cat\s+)?<<['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\1\s*$/.exec(text)
  return heredoc ? heredoc[2]! : text
}

function pathOf(line: string, header: string): string {
  const path = line.slice(header.length).trim()
  if (!path) throw patchFailed("parse", `"${header}" needs a path after it`)
  return path
}

/** An added file's `+` lines, up to the next header; its content ends with a newline unless empty. */
function readAdded(lines: string[], start: number, end: number) {
  const content: string[] = []
  let index = start
  for (; index < end && !lines[index]!.startsWith("***"); index++)
    if (lines[index]!.startsWith("+")) content.push(lines[index]!.slice(1))
  return { content: content.length === 0 ? "" : `${content.join("\n")}\n`, next: index }
}

function readUpdate(lines: string[], start: number, end: number) {
  const path = pathOf(lines[start]!, UPDATE)
  let index = start + 1
  let movePath: string | undefined
  if (index < end && lines[index]!.startsWith(MOVE)) movePath = pathOf(lines[index++]!, MOVE)
  const read = readChunks(lines, index, end)
  if (read.chunks.length === 0 && movePath === undefined)
    throw patchFailed(
      "parse",
      `"${UPDATE} ${path}" has no changes: give chunks of " ", "-" and "+" lines after "@@", or a "${MOVE} <path>" line`,
      path,
    )
  const hunk: PatchHunk = {
    type: "update",
    path,
    ...(movePath === undefined ? {} : { movePath }),
    chunks: read.chunks,
  }
  return { hunk, next: read.next }
}

/**
 * An update's chunks, up to the next header. A chunk starts at `@@` (the first may leave it out);
 * a bare empty line counts as an empty unchanged line, except at a chunk's end, where it is
 * taken for the blank line a model leaves between sections. Other lines are ignored, as OpenCode does.
 */
function readChunks(lines: string[], start: number, end: number) {
  const chunks: PatchChunk[] = []
  let current: (PatchChunk & { bareTail: number }) | undefined
  const close = () => {
    if (!current) return
    const { bareTail, ...chunk } = current
    chunk.oldLines.splice(chunk.oldLines.length - bareTail)
    chunk.newLines.splice(chunk.newLines.length - bareTail)
    if (chunk.oldLines.length > 0 || chunk.newLines.length > 0) chunks.push(chunk)
    current = undefined
  }
  const open = (context?: string) => {
    close()
    current = { ...(context ? { context } : {}), oldLines: [], newLines: [], endOfFile: false, bareTail: 0 }
    return current
  }
  let index = start
  for (; index < end; index++) {
    const line = lines[index]!
    if (line === END_OF_FILE) {
      if (current) current.endOfFile = true
      close()
    } else if (line.startsWith("***")) break
    else if (line.startsWith("@@")) open(line.slice(2).trim())
    else if (line === "") {
      if (!current) continue
      current.oldLines.push("")
      current.newLines.push("")
      current.bareTail++
    } else if (line[0] === " " || line[0] === "-" || line[0] === "+") {
      const chunk = current ?? open()
      chunk.bareTail = 0
      if (line[0] !== "+") chunk.oldLines.push(line.slice(1))
      if (line[0] !== "-") chunk.newLines.push(line.slice(1))
    }
  }
  close()
  return { chunks, next: index }
}
