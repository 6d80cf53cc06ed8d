import type { Context } from "../tool/tool.js"
import { askAccess } from "./access.js"
import { diffFiles, type FileDiff } from "./diff.js"
import { isBinary } from "./file-kind.js"
import type { FileStat } from "./operations.js"
import type { PathLock } from "./path-lock.js"
import { defaultCaseInsensitive, type PathOptions, type Target } from "./paths.js"
import { refuseProtected } from "./protected-paths.js"
import { decodeUtf8, formatText, parseText, type TextFile } from "./text-file.js"

export type Change = {
  /** The file's text before (LF line endings), or "" when it is new. */
  before: string
  /** The text after (LF line endings), for the diff. */
  after: string
  /** What to write: the text with the file's own line endings and byte-order mark. */
  data: string
}

/** A file as a tool found it, before changing it. */
export type CurrentFile = {
  /** Undefined when nothing is at the path. */
  stat: FileStat | undefined
  /** The bytes, when it is a file. */
  bytes: Uint8Array | undefined
  /** The text, when it is a UTF-8 text file. */
  text: TextFile | undefined
}

/** What a tool makes of the file as it is: the change to write; or it throws to refuse. */
export type Plan<T extends Change> = (current: CurrentFile) => T | Promise<T>

/**
 * Changes one file: reads it, plans the change, asks `edit` with the diff (so whoever approves
 * sees it), then reads it again and writes. All of that holds the file's lock, so another write
 * or edit of the same file waits instead of writing back a copy read before this one landed.
 * Should the file have changed while the ask was pending (a command, a person), the change is
 * planned again on its new content rather than undoing theirs; a plan that no longer applies
 * throws and nothing is written.
 */
export async function changeFile<T extends Change>(
  context: Context,
  target: Target,
  options: PathOptions & { lock: PathLock },
  plan: Plan<T>,
): Promise<{ change: T; diff: FileDiff; current: CurrentFile }> {
  return options.lock.run(lockKey(target, options), async () => {
    context.abort.throwIfAborted()
    // Before the file is read for the diff: the runtime's own data is neither shown nor changed.
    await refuseProtected(context, target, options)
    const seen = await readCurrent(context, target, options)
    const proposed = await plan(seen)
    const asked = diffFiles(target.display, proposed.before, proposed.after)
    await askAccess(
      context,
      target,
      { permission: "edit", kind: "file", metadata: { diff: asked.diff } },
      options,
    )
    const current = await readCurrent(context, target, options)
    const change = sameFile(seen, current) ? proposed : await plan(current)
    context.willChange?.(target.real)
    await options.operations.writeFile(target.real, change.data, { signal: context.abort })
    const diff = change === proposed ? asked : diffFiles(target.display, change.before, change.after)
    return { change, diff, current }
  })
}

/**
 * The whole file replaced by `content`, as `write` and an `edit` with an empty oldString do. An
 * existing text file keeps its byte-order mark and line endings (a file without line endings
 * takes the content's); a mark the content brings is not doubled.
 */
export function wholeFileChange(current: CurrentFile, content: string): Change {
  const incoming = parseText(content)
  const file = current.text
  if (!file) return { before: placeholder(current), after: incoming.text, data: content }
  const eol = file.text.includes("\n") ? file.eol : incoming.eol
  const data = formatText({ ...file, eol, bom: file.bom || incoming.bom }, incoming.text)
  return { before: file.text, after: incoming.text, data }
}

/** The output's summary line ("Edited a.ts (+1 -1)", with notes after the counts) and diff block. */
export function describeChange(verb: string, target: Target, diff: FileDiff, notes: string[] = []): string {
  const counts = [`+${diff.additions} -${diff.deletions}`, ...notes].join("; ")
  return `${verb} ${target.display} (${counts})\n\n${diff.diff}`
}

/** The file at `target` as it is now: what is there, its bytes and, for UTF-8 text, its text. */
export async function readCurrent(
  context: Pick<Context, "abort">,
  target: Target,
  options: PathOptions,
): Promise<CurrentFile> {
  const stat = await options.operations.stat(target.real)
  if (stat?.type !== "file") return { stat, bytes: undefined, text: undefined }
  const bytes = await options.operations.readFile(target.real, { signal: context.abort })
  const decoded = isBinary(target.real, bytes) ? undefined : decodeUtf8(bytes)
  return { stat, bytes, text: decoded === undefined ? undefined : parseText(decoded) }
}

/** What the diff shows as the old content: nothing for a new file, a placeholder for binary data. */
export function placeholder(current: CurrentFile): string {
  return current.bytes ? `(binary content, ${current.bytes.length} bytes)\n` : ""
}

/** Whether a file is as it was: same kind, same bytes. */
export function sameFile(a: CurrentFile, b: CurrentFile): boolean {
  if (a.stat?.type !== b.stat?.type) return false
  if (!a.bytes || !b.bytes) return a.bytes === b.bytes
  return a.bytes.length === b.bytes.length && a.bytes.every((byte, index) => byte === b.bytes![index])
}

/** On a case-insensitive file system `A.ts` and `a.ts` are one file, so they share a lock. */
export function lockKey(target: Target, options: PathOptions): string {
  const fold = options.caseInsensitive ?? defaultCaseInsensitive()
  return fold ? target.real.toLowerCase() : target.real
}
