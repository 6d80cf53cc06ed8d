import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff"

export type FileDiff = {
  /** A unified diff of the change, headed with the file's path. */
  diff: string
  additions: number
  deletions: number
}

/** The unified diff between two versions of a file (LF text), with its added and removed line counts. */
export function diffFiles(file: string, before: string, after: string): FileDiff {
  const patch = structuredPatch(file, file, before, after)
  let additions = 0
  let deletions = 0
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), additions, deletions }
}
