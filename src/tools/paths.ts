import * as path from "node:path"
import { UnsafePathError } from "./errors.js"
import type { Operations } from "./operations.js"
import type { PathLock } from "./path-lock.js"

/** Where the file tools work and how they see paths there. */
export type PathOptions = {
  /** The directory relative paths resolve against and permission patterns are relative to. */
  directory: string
  operations: Operations
  /**
   * Whether the file system ignores case (and, on Windows, trailing dots and spaces). Then tools
   * also ask with the lower-cased spelling of each path, so a rule written in lower case catches
   * every spelling that reaches the same file. Default: true on macOS and Windows.
   */
  caseInsensitive?: boolean
  /**
   * Held by `write` and `edit` while they read, ask about and write a file, so that two changes
   * to one file never overwrite each other. `codingTools` gives all its tools one; tools made
   * with their own factories share one only when given the same.
   */
  lock?: PathLock
}

/** A path a tool was given, resolved: what it acts on and what it asks permission for. */
export type Target = {
  /** Absolute, with `..`, `//`, `/./` and trailing slashes resolved; symlinks not yet followed. */
  path: string
  /** `path` with every symlink followed: where the tool acts, and what decides inside or outside. */
  real: string
  /** Whether `real` lies within the (real) directory. */
  inside: boolean
  /** How to show the path: relative to the directory with `/` when inside, else absolute. */
  display: string
  /**
   * Patterns of the tool's own permission: the path relative to the directory (absolute when
   * outside), for both the path as given and its symlink-resolved form when they differ.
   */
  patterns: string[]
  /** Absolute paths to check against `external_directory` rules when the target is outside. */
  outside: string[]
}

/** Default case rule: the file systems macOS and Windows ship with ignore case. */
export function defaultCaseInsensitive(): boolean {
  return process.platform === "darwin" || process.platform === "win32"
}

/** Resolves `input` against the directory and decides where it lands, following symlinks. */
export async function resolveTarget(input: string, options: PathOptions): Promise<Target> {
  const directory = path.resolve(options.directory)
  const realDirectory = await realpathOf(options.operations, directory)
  const absolute = path.resolve(directory, input)
  const real = await realpathOf(options.operations, absolute)
  const inside = isWithin(real, realDirectory)
  const lexical = isWithin(absolute, directory)
    ? relative(directory, absolute)
    : isWithin(absolute, realDirectory)
      ? relative(realDirectory, absolute)
      : slashes(absolute)
  const resolved = inside ? relative(realDirectory, real) : slashes(real)
  const fold = options.caseInsensitive ?? defaultCaseInsensitive()
  const patterns = withFolded(unique([lexical, resolved]), fold)
  // The path as given counts too: a deny on /tmp/* must hold even where /tmp links elsewhere.
  const outside = inside ? [] : unique([real, ...(isWithin(absolute, directory) ? [] : [absolute])])
  return { path: absolute, real, inside, display: inside ? lexical : slashes(absolute), patterns, outside }
}

/**
 * Patterns for `external_directory`: the directory holding the target (the target itself when
 * it is a directory) followed by `/*`, as OpenCode asks. So a rule `/etc/*` covers /etc, every
 * file under it, and reading or listing /etc itself.
 */
export function externalPatterns(
  target: Pick<Target, "outside">,
  kind: "file" | "directory",
  caseInsensitive: boolean,
) {
  const globs = target.outside.map((absolute) => {
    const folder = slashes(kind === "directory" ? absolute : path.dirname(absolute))
    return folder.endsWith("/") ? `${folder}*` : `${folder}/*`
  })
  return withFolded(unique(globs), caseInsensitive)
}

/**
 * What an "always" answer approves: the folder of each pattern with `/*` (`*` at the top), and a
 * directory's own pattern too, so the next call on the same folder needs no new answer.
 */
export function alwaysPatterns(patterns: readonly string[], kind: "file" | "directory"): string[] {
  return unique(
    patterns.flatMap((pattern) => {
      if (pattern === ".") return ["*"]
      const folder = kind === "directory" ? pattern : path.posix.dirname(pattern)
      const glob = folder === "." ? "*" : folder.endsWith("/") ? `${folder}*` : `${folder}/*`
      return kind === "directory" ? [pattern, glob] : [glob]
    }),
  )
}

/**
 * The path with symlinks resolved as far as it exists. The port is asked first; should it
 * reject a missing path, the nearest existing parent is resolved instead and the rest appended,
 * unless the missing part is itself a link: its target is unknown, so following it is refused.
 */
async function realpathOf(operations: Operations, file: string): Promise<string> {
  try {
    return await operations.realpath(file)
  } catch (error) {
    const parent = path.dirname(file)
    if (parent === file) throw error
    const name = path.basename(file)
    const entries = await operations.list(parent).catch(() => [])
    if (entries.some((entry) => entry.name === name && entry.type === "symlink"))
      throw new UnsafePathError({
        message: `Cannot resolve the symbolic link ${file}; refusing to follow it to an unknown place.`,
        path: file,
      })
    return path.join(await realpathOf(operations, parent), name)
  }
}

/** Whether `file` is `directory` or lies under it, as written (both absolute). */
export function isWithin(file: string, directory: string): boolean {
  const rel = path.relative(directory, file)
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel))
}

function relative(directory: string, file: string): string {
  return slashes(path.relative(directory, file)) || "."
}

function slashes(file: string): string {
  return file.split(path.sep).join("/")
}

/**
 * Adds the spelling a case-insensitive file system treats as the same file: lower case, and
 * without the trailing dots and spaces Windows drops from each name.
 */
function withFolded(patterns: string[], fold: boolean): string[] {
  if (!fold) return patterns
  const folded = patterns.map((pattern) =>
    pattern
      .toLowerCase()
      .split("/")
      .map((segment) => segment.replace(/[. ]+$/, "") || segment)
      .join("/"),
  )
  return unique([...patterns, ...folded])
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
