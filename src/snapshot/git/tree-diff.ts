import type { FileDiff } from "../schema.js"
import { pathspecs } from "./exclusions.js"
import { type GitContext, runGit } from "./git-process.js"
import { splitNul } from "./nul.js"

/** One changed path of `diff-tree --raw`: its blob on each side (the zero hash when absent). */
type RawChange = { file: string; before: string; after: string; gitlink: boolean }
type Counts = { additions: number; deletions: number; binary: boolean }

const ABSENT = /^0+$/
const GITLINK = "160000"

/**
 * The files that differ between the tree `from` and what `indexFile` records (renames shown
 * as a deletion and an addition). Comparing with the index saves writing its tree. Excluded
 * paths never show, even when `from` was recorded before they were excluded.
 */
export async function changedFiles(context: GitContext, from: string, indexFile: string): Promise<string[]> {
  const args = ["diff-index", "--cached", "-z", "--no-renames", "--name-only", from, "--"]
  return splitNul((await runGit(context, [...args, ...pathspecs(context.exclusions)], { indexFile })).stdout)
}

/** What changed between two trees, file by file, with each side's text; excluded paths left out. */
export async function treeDiff(context: GitContext, from: string, to: string): Promise<FileDiff[]> {
  const args = ["diff-tree", "-r", "-z", "--no-renames", "--raw", "--numstat", from, to, "--"]
  args.push(...pathspecs(context.exclusions))
  const { changes, counts } = parseDiffTree(splitNul((await runGit(context, args)).stdout))
  const texts = await readBlobs(
    context,
    changes.flatMap((change) =>
      counts.get(change.file)?.binary || change.gitlink ? [] : [change.before, change.after],
    ),
  )
  return changes.map((change): FileDiff => {
    const count = counts.get(change.file) ?? { additions: 0, deletions: 0, binary: false }
    const text = (blob: string) => (count.binary ? "" : (texts.get(blob) ?? ""))
    return {
      file: change.file,
      before: text(change.before),
      after: text(change.after),
      additions: count.additions,
      deletions: count.deletions,
    }
  })
}

/**
 * Splits `diff-tree -z --raw --numstat` output: first the raw records (`:mode mode blob blob
 * status`, then the path, as two entries), then one `additions TAB deletions TAB path` entry
 * per file, `-` for both counts when the file is binary.
 */
export function parseDiffTree(entries: readonly string[]): {
  changes: RawChange[]
  counts: Map<string, Counts>
} {
  const changes: RawChange[] = []
  let index = 0
  while (index + 1 < entries.length && entries[index]!.startsWith(":")) {
    const [beforeMode, afterMode, before, after] = entries[index]!.slice(1).split(" ")
    const gitlink = beforeMode === GITLINK || afterMode === GITLINK
    changes.push({ file: entries[index + 1]!, before: before ?? "", after: after ?? "", gitlink })
    index += 2
  }
  const counts = new Map<string, Counts>()
  for (const entry of entries.slice(index)) {
    const [additions = "", deletions = "", ...file] = entry.split("\t")
    const binary = additions === "-"
    counts.set(file.join("\t"), {
      additions: binary ? 0 : Number(additions),
      deletions: binary ? 0 : Number(deletions),
      binary,
    })
  }
  return { changes, counts }
}

/**
 * The text of each blob, from one `cat-file --batch` however many there are. Blobs are named
 * by hash rather than by `tree:path`, since the batch protocol is line-based and a path may
 * hold a newline.
 */
async function readBlobs(context: GitContext, blobs: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(blobs.filter((blob) => blob && !ABSENT.test(blob)))]
  const texts = new Map<string, string>()
  if (wanted.length === 0) return texts
  const { stdout } = await runGit(context, ["cat-file", "--batch"], { input: `${wanted.join("\n")}\n` })
  let offset = 0
  while (offset < stdout.length) {
    const headerEnd = stdout.indexOf(0x0a, offset)
    if (headerEnd < 0) break
    const [blob = "", type = "", size = ""] = stdout.toString("utf8", offset, headerEnd).split(" ")
    offset = headerEnd + 1
    if (type === "missing") continue
    const end = offset + Number(size)
    texts.set(blob, stdout.toString("utf8", offset, end))
    offset = end + 1
  }
  return texts
}
