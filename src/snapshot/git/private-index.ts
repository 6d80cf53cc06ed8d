import { randomBytes } from "node:crypto"
import { copyFile, rename, rm, stat, utimes } from "node:fs/promises"
import path from "node:path"

/**
 * Runs `operation` on a private copy of the git dir's index, then renames the copy over the
 * shared one. Git refuses to work while another process holds `index.lock`, so two
 * snapshots of one directory (two runtimes, two processes) sharing the index would fail each
 * other's `git add`; with a copy each, both succeed and the last rename wins, which is fine:
 * every index is a valid cache of the same work tree, and objects are written atomically.
 * On failure the copy is dropped and the shared index is left as it was.
 */
export async function withPrivateIndex<T>(gitDir: string, operation: (indexFile: string) => Promise<T>) {
  const shared = path.join(gitDir, "index")
  const copy = path.join(gitDir, `index.${randomBytes(6).toString("hex")}.private`)
  try {
    await copyIndex(shared, copy)
    const result = await operation(copy)
    await rename(copy, shared)
    return result
  } finally {
    await rm(copy, { force: true })
  }
}

/**
 * Copies the index keeping its modification time. Git takes an entry whose file changed no
 * earlier than the index was written as possibly changed ("racy git") and re-reads it; a
 * copy stamped with the time of copying would make such a file, changed in the same instant
 * as the index was written, look unchanged. The time is rounded down, which errs towards
 * re-reading, as does taking the time before copying: a newer index renamed in between gets
 * an older time, never the reverse.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const stats = await stat(from).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw error
  })
  if (!stats) return
  await copyFile(from, to)
  await utimes(to, stats.atime, new Date(Math.floor(stats.mtimeMs)))
}
