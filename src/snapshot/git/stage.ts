import { lstat } from "node:fs/promises"
import path from "node:path"
import { pathspecs } from "./exclusions.js"
import { GitCommandError } from "./git-command-error.js"
import { type GitContext, runGit } from "./git-process.js"
import { joinNul, splitNul } from "./nul.js"

/** Untracked files larger than this are left out: build outputs, data sets, media. */
export const LARGE_FILE_LIMIT = 2 * 1024 * 1024

/** How many files are stat'ed at once: enough to keep libuv's pool busy, not a flood. */
const STAT_BATCH = 256

/**
 * Records the work tree in `indexFile` and returns the tree's hash. Ignored files stay out
 * (git reads the work tree's `.gitignore` files), and so do the context's exclusions, untracked
 * files over LARGE_FILE_LIMIT and nested repositories (see untrackedToSkip).
 */
export async function recordTree(context: GitContext, indexFile: string): Promise<string> {
  await stage(context, indexFile)
  const { stdout } = await runGit(context, ["write-tree"], { indexFile })
  return stdout.toString("utf8").trim()
}

/**
 * Adds, updates and removes index entries until the index matches the work tree, as
 * `git add --all` would. Listing the untracked files (to leave out the large ones) and updating
 * the tracked ones are independent, so they run at once; the untracked files to record are then
 * added by name, which walks no directory again.
 */
export async function stage(context: GitContext, indexFile: string): Promise<void> {
  const excluded = pathspecs(context.exclusions)
  const list = ["ls-files", "-z", "--others", "--exclude-standard", "--", ...excluded]
  // A file git cannot read (another user's, mode 600) is left out rather than failing the whole
  // snapshot: with --ignore-errors git still writes the index and says so with exit code 1.
  const update = ["add", "--update", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"]
  const [listed, updated] = await Promise.all([
    runGit(context, list, { indexFile }),
    runGit(context, update, { indexFile, input: joinNul(excluded), allowFailure: true }),
  ])
  if (updated.exitCode > 1) throw GitCommandError.of("add", updated.exitCode, updated.stderr)
  const untracked = splitNul(listed.stdout)
  if (untracked.length === 0) return
  const skipped = await untrackedToSkip(context.workTree, untracked)
  const left = new Set(skipped)
  const added = untracked.filter((file) => !left.has(file))
  if (added.length === 0) return
  // Names, not pathspecs: git matches every file against every pathspec, which is slow for many.
  const byName = ["update-index", "--add", "--remove", "-z", "--stdin"]
  const { exitCode } = await runGit(context, byName, { indexFile, input: joinNul(added), allowFailure: true })
  // It stops at a file it cannot read: `add --all` leaves that one out and records the rest.
  if (exitCode !== 0) await addAll(context, indexFile, skipped)
}

async function addAll(context: GitContext, indexFile: string, skipped: readonly string[]): Promise<void> {
  // Pathspecs go on stdin, so any number of skipped files fits.
  const add = pathspecs([...context.exclusions, ...skipped])
  const args = ["add", "--all", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"]
  const { exitCode, stderr } = await runGit(context, args, {
    indexFile,
    input: joinNul(add),
    allowFailure: true,
  })
  if (exitCode > 1) throw GitCommandError.of("add", exitCode, stderr)
}

/**
 * The untracked entries `git add` must not take: files over LARGE_FILE_LIMIT, and nested
 * repositories (listed by git with a trailing `/`), which git would record as a bare commit
 * pointer, or refuse outright when they have no commit yet.
 */
async function untrackedToSkip(workTree: string, untracked: readonly string[]): Promise<string[]> {
  const skipped = untracked.filter((file) => file.endsWith("/"))
  const files = untracked.filter((file) => !file.endsWith("/"))
  for (let start = 0; start < files.length; start += STAT_BATCH) {
    const batch = files.slice(start, start + STAT_BATCH)
    const sizes = await Promise.all(batch.map((file) => sizeOf(path.join(workTree, file))))
    batch.forEach((file, index) => {
      if (sizes[index]! > LARGE_FILE_LIMIT) skipped.push(file)
    })
  }
  return skipped
}

/** The file's size; 0 when it vanished since git listed it (git add then records its absence). */
async function sizeOf(file: string): Promise<number> {
  return lstat(file).then(
    (stats) => stats.size,
    () => 0,
  )
}
