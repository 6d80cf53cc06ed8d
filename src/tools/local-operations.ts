import * as fs from "node:fs/promises"
import * as path from "node:path"
import { resolveLinks } from "../util/confined-path.js"
import { localExec } from "./bash/local-exec.js"
import type { DirectoryEntry, FileStat, Operations } from "./operations.js"
import { GLOB_PACKAGES, requirePackages } from "./packages.js"

// Shared with the git snapshot, which must not follow an agent's links either.
export { resolveLinks }

/**
 * The coding tools' operations on this machine: node:fs, tinyglobby (an optional package, see
 * codingTools), and a local shell.
 */
export const localOperations: Operations = {
  async readFile(file, options) {
    return new Uint8Array(await fs.readFile(file, { signal: options?.signal }))
  },

  async writeFile(file, data, options) {
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, data, { signal: options?.signal })
  },

  async remove(file, options) {
    options?.signal?.throwIfAborted()
    await removeFile(file)
  },

  async stat(file) {
    try {
      return toStat(await fs.stat(file))
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  },

  realpath: (file) => resolveLinks(path.resolve(file), 0),

  async list(directory) {
    const entries = await fs.readdir(directory, { withFileTypes: true })
    return entries.map((entry) => ({ name: entry.name, type: entryType(entry) }))
  },

  async glob(pattern, options) {
    // Loaded here, so that importing the tools (to run them elsewhere) needs no tinyglobby.
    const { glob } = await import("tinyglobby").catch((error: unknown) => {
      requirePackages("the glob tool of localOperations", GLOB_PACKAGES)
      throw error
    })
    const found = await glob(pattern, {
      cwd: options.cwd,
      ignore: options.ignore ?? [],
      // Dotfiles (.github, .env.example) are part of a project; what to skip comes from `ignore`.
      dot: true,
      // A pattern names files: "src" must not silently become "src/**".
      expandDirectories: false,
      // Following links could walk out of `cwd` (or loop); tools resolve links themselves.
      followSymbolicLinks: false,
      ...(options.signal ? { signal: options.signal } : {}),
    })
    // A pattern may climb out with "../": what lies outside `cwd` is not this glob's to report.
    const inside = found.filter((file) => !file.split("/").includes(".."))
    return options.limit === undefined ? inside : inside.slice(0, options.limit)
  },

  exec: (command, options) => localExec(command, options),
}

/**
 * Removes a file or a symlink (not what it points to); refuses a directory, which `fs.rm` without
 * `recursive` would also refuse, but with a clearer error. Shared with the sandbox's operations.
 */
export async function removeFile(file: string): Promise<void> {
  const found = await fs.lstat(file)
  if (found.isDirectory())
    throw Object.assign(new Error(`EISDIR: cannot remove a directory: ${file}`), { code: "EISDIR" })
  await fs.rm(file)
}

function toStat(stats: import("node:fs").Stats): FileStat {
  const type = stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other"
  return { type, size: stats.size, mtimeMs: stats.mtimeMs }
}

function entryType(entry: import("node:fs").Dirent): DirectoryEntry["type"] {
  if (entry.isSymbolicLink()) return "symlink"
  if (entry.isFile()) return "file"
  if (entry.isDirectory()) return "directory"
  return "other"
}

// ENOTDIR: a file stands where a directory was expected, so the path does not exist either.
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}
