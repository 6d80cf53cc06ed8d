import type { Context } from "../tool/tool.js"
import { askAccess } from "./access.js"
import { diffFiles, type FileDiff } from "./diff.js"
import { isBinary } from "./file-kind.js"
import type { FileStat } from "./operations.js"
import type { PathOptions, Target } from "./paths.js"
import { decodeUtf8, toLF } from "./text-file.js"

export type Change = {
  /** The file's text before (LF line endings), or "" when it is new. */
  before: string
  /** The text after (LF line endings), for the diff. */
  after: string
  /** What to write: the text with the file's own line endings and byte-order mark. */
  data: string
}

/**
 * Asks `edit` with the change's diff (so whoever approves sees it), then writes the file. The
 * diff is made before asking and the file written after: what was approved is what lands.
 */
export async function applyChange(
  context: Context,
  target: Target,
  change: Change,
  options: PathOptions,
): Promise<FileDiff> {
  const diff = diffFiles(target.display, change.before, change.after)
  await askAccess(
    context,
    target,
    { permission: "edit", kind: "file", metadata: { diff: diff.diff } },
    options,
  )
  await options.operations.writeFile(target.real, change.data, { signal: context.abort })
  return diff
}

/** The current text of a file for a diff: "" when missing, a placeholder when not text. */
export async function previousText(options: PathOptions, target: Target, stat: FileStat | undefined) {
  if (stat?.type !== "file") return ""
  const bytes = await options.operations.readFile(target.real)
  const text = isBinary(target.real, bytes) ? undefined : decodeUtf8(bytes)
  return text === undefined ? `(binary content, ${bytes.length} bytes)\n` : toLF(text.replace(/^\uFEFF/, ""))
}

/** The output's summary line ("Edited a.ts (+1 -1)", with notes after the counts) and diff block. */
export function describeChange(verb: string, target: Target, diff: FileDiff, notes: string[] = []): string {
  const counts = [`+${diff.additions} -${diff.deletions}`, ...notes].join("; ")
  return `${verb} ${target.display} (${counts})\n\n${diff.diff}`
}
