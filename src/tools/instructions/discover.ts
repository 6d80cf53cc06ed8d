import * as path from "node:path"
import type { Operations } from "../operations.js"
import { localVariant } from "./options.js"

/** Whether a file is there; a path the operations refuse (outside a sandbox) counts as absent. */
export async function isFile(operations: Operations, file: string): Promise<boolean> {
  const stat = await operations.stat(file).catch(() => undefined)
  return stat?.type === "file"
}

/** The file and its `.local.md`, those of them that exist, the file first. */
export async function withLocal(operations: Operations, file: string): Promise<string[]> {
  const local = localVariant(file)
  const candidates = local === undefined ? [file] : [file, local]
  const found = await Promise.all(candidates.map((candidate) => isFile(operations, candidate)))
  return candidates.filter((_, index) => found[index])
}

/** The nearest folder from `directory` up holding `.git` (a folder, or a file in a worktree); else `directory`. */
export async function workTreeRoot(operations: Operations, directory: string): Promise<string> {
  for (let folder = directory; ; folder = path.dirname(folder)) {
    const stat = await operations.stat(path.join(folder, ".git")).catch(() => undefined)
    if (stat?.type === "file" || stat?.type === "directory") return folder
    if (path.dirname(folder) === folder) return directory
  }
}

/**
 * The folders from `root` down to `directory`, both included; `directory` alone when `root` is
 * not one of its ancestors.
 */
export function foldersDown(root: string, directory: string): string[] {
  const relative = path.relative(root, directory)
  if (relative.startsWith("..") || path.isAbsolute(relative)) return [directory]
  const folders = [root]
  for (const segment of relative.split(path.sep).filter(Boolean))
    folders.push(path.join(folders[folders.length - 1]!, segment))
  return folders
}

/**
 * The project's files: for each name in order, its hits (the file, then its `.local.md`) in the
 * folders from the root down to the directory; the first name with any hit is the only one taken.
 */
export async function projectFiles(
  operations: Operations,
  folders: readonly string[],
  names: readonly string[],
): Promise<string[]> {
  for (const name of names) {
    const hits = await Promise.all(folders.map((folder) => withLocal(operations, path.join(folder, name))))
    if (hits.some((found) => found.length > 0)) return hits.flat()
  }
  return []
}

/** The first of `paths` that exists (as itself or its `.local.md`), with its `.local.md`. */
export async function globalFiles(operations: Operations, paths: readonly string[]): Promise<string[]> {
  for (const file of paths) {
    const found = await withLocal(operations, file)
    if (found.length > 0) return found
  }
  return []
}

const GLOB_CHARACTERS = /[*?[\]{}!]/

/**
 * The files `entries` name, in order: a plain path (relative to `directory` or absolute) when it
 * is a file, a glob's matches sorted. What matches nothing is left out.
 */
export async function extraFiles(
  operations: Operations,
  directory: string,
  entries: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  const lists = await Promise.all(
    entries.map(async (entry) => {
      const absolute = path.resolve(directory, entry)
      if (!GLOB_CHARACTERS.test(entry)) return (await isFile(operations, absolute)) ? [absolute] : []
      const { base, pattern } = splitGlob(entry, directory)
      const options = { cwd: base, ...(signal ? { signal } : {}) }
      const found = await operations.glob(pattern, options).catch(() => [])
      return found.map((file) => path.join(base, file)).sort()
    }),
  )
  return lists.flat()
}

/** A glob split into its fixed leading folder (resolved) and the pattern below it. */
function splitGlob(entry: string, directory: string): { base: string; pattern: string } {
  const segments = entry.split(/[\\/]/)
  const first = segments.findIndex((segment) => GLOB_CHARACTERS.test(segment))
  const fixed = segments.slice(0, first).join("/")
  const base = path.resolve(directory, fixed === "" && entry.startsWith("/") ? "/" : fixed)
  return { base, pattern: segments.slice(first).join("/") }
}
