import { lchown, lstat, unlink } from "node:fs/promises"
import path from "node:path"
import { isTreeEntry } from "../../util/confined-path.js"
import { isExcluded } from "./exclusions.js"
import { type GitContext, runGit } from "./git-process.js"
import { joinNul, splitNul } from "./nul.js"
import { stage } from "./stage.js"
import { changedFiles } from "./tree-diff.js"

/**
 * Puts back every file the state `hash` recorded, leaving the others alone. Only the files
 * that differ are written, so that editors and file watchers see just what changed.
 */
export async function restoreState(context: GitContext, hash: string, indexFile: string): Promise<void> {
  await stage(context, indexFile)
  const changed = await changedFiles(context, hash, indexFile)
  const recorded = await filesOf(context, hash)
  await checkout(
    context,
    hash,
    changed.filter((file) => recorded.has(file)),
    indexFile,
  )
}

/**
 * Puts each file back as it was in its state (see planRevert): files the state recorded are
 * checked out of it, one `git checkout` per state; the others did not exist then and are
 * deleted. Deletions go first, so that a file that replaced a directory (or the reverse)
 * is out of the way of what comes back.
 */
export async function revertFiles(context: GitContext, plan: Map<string, string[]>, indexFile: string) {
  const checkouts: [hash: string, files: string[]][] = []
  const deletions: string[] = []
  for (const [hash, planned] of plan) {
    // A patch stored before a path was excluded may name it: the path is no longer ours to touch.
    const files = planned.filter((file) => !isExcluded(file, context.exclusions))
    const recorded = await filesOf(context, hash)
    checkouts.push([hash, files.filter((file) => recorded.has(file))])
    deletions.push(...files.filter((file) => !recorded.has(file)))
  }
  for (const file of deletions) await deleteFile(context.workTree, file)
  for (const [hash, files] of checkouts) await checkout(context, hash, files, indexFile)
}

/** Writes `files` as the tree `hash` has them, into the work tree and the index. */
async function checkout(context: GitContext, hash: string, files: readonly string[], indexFile: string) {
  if (files.length === 0) return
  // Literal pathspecs: a name holding `*` or `:(` means itself.
  const args = ["--literal-pathspecs", "checkout", hash, "--pathspec-from-file=-", "--pathspec-file-nul"]
  await runGit(context, args, { indexFile, input: joinNul(files) })
  await giveToOwners(context.workTree, files)
}

type Owner = { uid: number; gid: number }

/**
 * As root, git makes what it checks out root's: in a work tree of another user's (a sandbox's,
 * whose commands run as that user) each file and folder root now owns goes to the owner of the
 * folder it lies in, so that the user's commands can change what a revert put back. Links on
 * the way are not followed (git replaced any with folders).
 */
async function giveToOwners(workTree: string, files: readonly string[]): Promise<void> {
  if (process.getuid?.() !== 0) return
  const owners = new Map<string, Owner>()
  const root = await lstat(workTree)
  owners.set("", { uid: root.uid, gid: root.gid })
  for (const file of files) {
    const segments = file.split("/")
    for (let depth = 1; depth <= segments.length; depth++) {
      const relative = segments.slice(0, depth).join("/")
      if (owners.has(relative)) continue
      const parent = owners.get(segments.slice(0, depth - 1).join("/"))!
      const stats = await lstat(path.join(workTree, relative)).catch(() => undefined)
      if (!stats) break
      const owned = stats.uid === 0 && parent.uid !== 0
      if (owned) await lchown(path.join(workTree, relative), parent.uid, parent.gid)
      owners.set(relative, owned ? parent : { uid: stats.uid, gid: stats.gid })
      if (!stats.isDirectory()) break
    }
  }
}

/** Every file the tree `hash` records. */
async function filesOf(context: GitContext, hash: string): Promise<Set<string>> {
  const { stdout } = await runGit(context, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", hash])
  return new Set(splitNul(stdout))
}

/**
 * Deletes a file that did not exist in the state reverted to. Already gone is fine; a
 * directory now standing at that name is left alone, since its files are not this patch's.
 * A path under a link (a folder an agent's command swapped for a link, to the host's files
 * perhaps) names no file of the tree, as git sees it: it is left alone too, and the link, an
 * entry of its own, is reverted when a reverted patch names it.
 */
async function deleteFile(workTree: string, relative: string): Promise<void> {
  if (!(await isTreeEntry(workTree, relative))) return
  const file = path.join(workTree, relative)
  try {
    await unlink(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return
    const isDirectory = await lstat(file).then(
      (stats) => stats.isDirectory(),
      () => false,
    )
    if (!isDirectory) throw error
  }
}
