import { diffFiles } from "../diff.js"
import { UnsupportedFileError } from "../errors.js"
import { type CurrentFile, placeholder } from "../file-change.js"
import type { Operations } from "../operations.js"
import { formatText, type TextFile } from "../text-file.js"
import { applyHunks, type PatchedFile } from "./apply.js"
import { patchFailed } from "./failure.js"
import type { PatchHunk } from "./parse.js"
import type { PatchTarget } from "./targets.js"

/** One file's end state: `data` to write (with its line endings and mark), or undefined to remove it. */
export type FileWrite = { file: PatchTarget; data: string | undefined; original: CurrentFile }

/** One file of the patch as OpenCode reports it (and its terminal UI reads it), in `metadata.files`. */
export type PatchFileReport = {
  filePath: string
  relativePath: string
  type: PatchedFile["type"]
  /** The file's unified diff. */
  patch: string
  additions: number
  deletions: number
  movePath?: string
}

/** What a patch will do: each section, each file's end state, and the report of each section. */
export type PatchPlan = {
  patched: PatchedFile[]
  writes: FileWrite[]
  files: PatchFileReport[]
  diff: string
}

type Format = Pick<TextFile, "bom" | "eol">
const NEW_FILE: Format = { bom: false, eol: "\n" }

/**
 * Computes the whole patch on the files as read (`current`, by lock key), writing nothing.
 * Throws when any section does not fit, a path is not a text file, or a file must be removed
 * and the operations cannot.
 */
export function planPatch(
  hunks: readonly PatchHunk[],
  byDisplay: ReadonlyMap<string, PatchTarget>,
  current: ReadonlyMap<string, CurrentFile>,
  operations: Operations,
): PatchPlan {
  const entry = (path: string) => byDisplay.get(path)!
  const now = (path: string) => current.get(entry(path).key)!
  refuseUnsupported(hunks, now)
  const applied = applyHunks(hunks, {
    read: (path) => {
      const file = now(path)
      return file.text?.text ?? (file.stat ? placeholder(file) : undefined)
    },
    key: (path) => entry(path).key,
  })
  const formats = formatsAfter(applied.files, current, (path) => entry(path).key)
  const writes: FileWrite[] = []
  for (const [path, text] of applied.final) {
    const file = entry(path)
    const original = current.get(file.key)!
    // Made and removed within the patch: there is nothing to do.
    if (text === undefined && !original.stat) continue
    const data =
      text === undefined ? undefined : formatText({ text, ...(formats.get(file.key) ?? NEW_FILE) }, text)
    writes.push({ file, data, original })
  }
  const removed = writes.find((write) => write.data === undefined)
  if (removed && !operations.remove)
    throw patchFailed(
      "remove-unsupported",
      `cannot delete or move ${removed.file.target.display}: these operations cannot remove files`,
      removed.file.target.display,
    )
  const files = applied.files.map((file) => report(file, entry))
  return { patched: applied.files, writes, files, diff: files.map((file) => file.patch).join("") }
}

/** Neither directories nor binary files are patched (an added file may replace a binary one). */
function refuseUnsupported(hunks: readonly PatchHunk[], now: (path: string) => CurrentFile) {
  for (const hunk of hunks) {
    const paths =
      hunk.type === "update" && hunk.movePath !== undefined ? [hunk.path, hunk.movePath] : [hunk.path]
    for (const path of paths) {
      const file = now(path)
      if (file.stat && file.stat.type !== "file")
        throw UnsupportedFileError.of(path, "not-a-file", "Cannot patch what is not a file")
    }
    if (hunk.type === "update" && now(hunk.path).bytes && !now(hunk.path).text)
      throw UnsupportedFileError.of(hunk.path, "binary", "Cannot patch a file that is not UTF-8 text")
  }
}

/** Each file keeps its byte-order mark and line endings; a moved file takes its own along. */
function formatsAfter(
  patched: readonly PatchedFile[],
  current: ReadonlyMap<string, CurrentFile>,
  key: (path: string) => string,
): Map<string, Format> {
  const formats = new Map<string, Format>()
  for (const [fileKey, { text }] of current) if (text) formats.set(fileKey, { bom: text.bom, eol: text.eol })
  for (const file of patched) {
    if (file.type !== "move" || file.movePath === undefined) continue
    const carried = formats.get(key(file.path))
    if (carried) formats.set(key(file.movePath), carried)
    else formats.delete(key(file.movePath))
  }
  return formats
}

function report(file: PatchedFile, entry: (path: string) => PatchTarget): PatchFileReport {
  const shown = file.movePath ?? file.path
  const { diff, additions, deletions } = diffFiles(shown, file.before, file.after)
  return {
    filePath: entry(file.path).target.real,
    relativePath: shown,
    type: file.type,
    patch: diff,
    additions,
    deletions,
    ...(file.movePath === undefined ? {} : { movePath: entry(file.movePath).target.real }),
  }
}
