import { realpath } from "node:fs/promises"
import path from "node:path"
import { SnapshotUnavailableError } from "../errors.js"
import { SnapshotDataDirError } from "./data-dir-error.js"

/**
 * What a SQLite database writes beside its file: leaving out `agent.db` leaves these out too,
 * since a snapshot that put back one without the others would corrupt the database.
 */
const SQLITE_SIBLINGS = ["-wal", "-shm", "-journal"] as const

/**
 * The paths a snapshot leaves out, relative to the work tree with `/` separators: the data dir
 * when it lies inside the work tree, and each of `exclude` (with its SQLite siblings) that does.
 * Paths outside the work tree are dropped: there is nothing of theirs to leave out.
 *
 * `directory` is the work tree as the host spelled it and `workTree` its real path; a path is
 * tried against the first, then by its own real path (its nearest existing ancestor's, for a
 * file not made yet) against the second, so symbolic links on either side are seen through.
 */
export async function resolveExclusions(input: {
  directory: string
  workTree: string
  dataDir: string
  exclude: readonly string[]
}): Promise<string[]> {
  const { directory, workTree } = input
  const dataDir = await inside(directory, workTree, input.dataDir)
  if (dataDir === "") throw SnapshotDataDirError.of(directory, input.dataDir)
  const exclusions = dataDir === undefined ? [] : [dataDir]
  for (const entry of input.exclude) {
    const file = await inside(directory, workTree, path.resolve(directory, entry))
    if (file === "")
      throw new SnapshotUnavailableError({ message: `exclude ${entry} is the tracked directory itself` })
    if (file !== undefined) exclusions.push(file, ...SQLITE_SIBLINGS.map((suffix) => `${file}${suffix}`))
  }
  return exclusions
}

/** Pathspecs that leave `exclusions` out of a git command working on the whole work tree. */
export function pathspecs(exclusions: readonly string[]): string[] {
  // `literal`: a name holding `*` or `?` means itself.
  return [":(top)", ...exclusions.map((file) => `:(exclude,literal)${file}`)]
}

/** Whether `file` (relative, `/` separators) is one of `exclusions` or lies under one. */
export function isExcluded(file: string, exclusions: readonly string[]): boolean {
  return exclusions.some((excluded) => file === excluded || file.startsWith(`${excluded}/`))
}

/** `target` relative to the work tree ("" for the work tree itself), or undefined when outside it. */
export async function inside(
  directory: string,
  workTree: string,
  target: string,
): Promise<string | undefined> {
  const spelled = relativeInside(directory, target)
  if (spelled !== undefined) return spelled
  return relativeInside(workTree, await realPathOf(target))
}

function relativeInside(base: string, target: string): string | undefined {
  const relative = path.relative(base, target)
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined
  return relative.split(path.sep).join("/")
}

async function realPathOf(target: string): Promise<string> {
  try {
    return await realpath(target)
  } catch {
    const parent = path.dirname(target)
    if (parent === target) return target
    return path.join(await realPathOf(parent), path.basename(target))
  }
}
