import * as fs from "node:fs/promises"
import * as path from "node:path"

// Path confinement shared by the coding tools' sandbox and the git snapshot: both act on the
// host for an agent whose commands may have planted links. Only those subpaths import this
// file (the core imports no `fs`).

// More links than this in one resolution is a loop (Linux stops at 40 too).
const MAX_LINKS = 40

/**
 * The path with every link resolved, as far as it exists: a missing tail is appended to its
 * resolved parent, and a link whose target is missing is followed by reading the link, so that
 * writing through it cannot land somewhere the caller did not see.
 */
export async function resolveLinks(file: string, links = 0): Promise<string> {
  try {
    return await fs.realpath(file)
  } catch (error) {
    if (!isMissing(error)) throw error
  }
  const parent = path.dirname(file)
  if (parent === file) return file
  const realParent = await resolveLinks(parent, links)
  const target = await fs.readlink(file).catch(() => undefined)
  if (target === undefined) return path.join(realParent, path.basename(file))
  if (links >= MAX_LINKS)
    throw Object.assign(new Error(`Too many symbolic links: ${file}`), { code: "ELOOP" })
  return resolveLinks(path.resolve(realParent, target), links + 1)
}

/** Whether `file` is one of `roots` or lies under one (all absolute, symlinks resolved). */
export function within(file: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, file)
    return (
      relative === "" ||
      (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    )
  })
}

/**
 * Whether `relative` names an entry of the tree at `root` (a real path) as git sees one: it
 * stays under `root`, and every folder between them is a folder, not a link (even one leading
 * back inside). A path under a link names no entry of the tree: the link is an entry itself,
 * and acting on such a path would act on whatever the link leads to.
 */
export async function isTreeEntry(root: string, relative: string): Promise<boolean> {
  const file = path.resolve(root, relative)
  if (file === root || !within(file, [root])) return false
  const parent = path.dirname(file)
  return (await resolveLinks(parent)) === parent
}

// ENOTDIR: a file stands where a directory was expected, so the path does not exist either.
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}
