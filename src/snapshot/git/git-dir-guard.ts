import { randomBytes } from "node:crypto"
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
} from "node:fs"
import path from "node:path"
import { SnapshotUnavailableError } from "../errors.js"
import { type Settings, settingsOf } from "./known-changes.js"

/**
 * Attributes for every path, with the highest precedence git has: no end-of-line conversion,
 * clean/smudge filter or keyword expansion from the work tree's `.gitattributes`, so a file
 * comes back byte for byte as it was recorded.
 */
export const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"

/**
 * The only config the git dir holds: the format and what `git init` probed of the file system.
 * Everything else a command needs is on its command line (see git-process.ts).
 */
export function configText(settings: Settings): string {
  const lines = [
    "[core]",
    "\trepositoryformatversion = 0",
    `\tfilemode = ${settings.fileMode}`,
    "\tbare = true",
    `\tsymlinks = ${settings.symlinks}`,
    `\tignorecase = ${settings.ignoreCase}`,
    `\tprecomposeunicode = ${settings.precomposeUnicode}`,
  ]
  return `${lines.join("\n")}\n`
}

/**
 * Puts back what git reads from the git dir that could run a program or lead a write out of
 * it, before each use: a data dir inside the work tree can be written by the agent's commands.
 * The config is rewritten to configText (no hooks path, filters, diff drivers, includes or
 * fsmonitor: git reads no other config, and the command line disables hooks too), the
 * attributes to ATTRIBUTES; a `commondir` (which would take git's config and hooks from
 * elsewhere) and object alternates are removed; links where folders belong (`info`, `objects`
 * and its fan-out) are removed, so that nothing written lands outside. A git dir that moved or
 * became a link since it was opened (`real`, its real path then) is refused. The calls are
 * synchronous, as loose-objects.ts explains: a dozen small ones, each a trip through libuv's
 * thread pool otherwise.
 */
export function guardGitDir(gitDir: string, real: string): void {
  const now = statOf(gitDir)?.isDirectory() ? realOf(gitDir) : undefined
  if (now !== real)
    throw new SnapshotUnavailableError({
      message: `The snapshot git dir ${gitDir} was moved or replaced by a link; remove it to start a new history`,
    })
  folder(path.join(gitDir, "info"))
  folder(path.join(gitDir, "objects"))
  removeLinks(path.join(gitDir, "objects"))
  folder(path.join(gitDir, "objects", "info"))
  rmSync(path.join(gitDir, "commondir"), { recursive: true, force: true })
  rmSync(path.join(gitDir, "objects", "info", "alternates"), { recursive: true, force: true })
  const config = contentOf(path.join(gitDir, "config"))
  replace(path.join(gitDir, "config"), configText(settingsOf(config ?? "")))
  replace(path.join(gitDir, "info", "attributes"), ATTRIBUTES)
}

/** A folder at `file`: whatever else stands there (a link, a file) is removed first. */
function folder(file: string): void {
  const stats = statOf(file)
  if (stats?.isDirectory()) return
  if (stats) rmSync(file, { force: true })
  // Another process on the same git dir may make it first.
  mkdirSync(file, { recursive: true })
}

/** Removes the links among a folder's entries (the links themselves, never what they lead to). */
function removeLinks(directory: string): void {
  for (const entry of readdirSync(directory, { withFileTypes: true }))
    if (entry.isSymbolicLink()) rmSync(path.join(directory, entry.name), { force: true })
}

/** A regular file's text; undefined for anything else (a link is not read through). */
function contentOf(file: string): string | undefined {
  return statOf(file)?.isFile() ? readFileSync(file, "utf8") : undefined
}

/** Writes `text` to `file` unless it holds it: a new file renamed over, so a link there is replaced. */
function replace(file: string, text: string): void {
  if (contentOf(file) === text) return
  // A folder planted there would refuse the rename; it is in our git dir, so it goes whole.
  if (statOf(file)?.isDirectory()) rmSync(file, { recursive: true })
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`
  try {
    writeFileSync(temporary, text, { flag: "wx" })
    renameSync(temporary, file)
  } finally {
    rmSync(temporary, { force: true })
  }
}

function statOf(file: string): Stats | undefined {
  try {
    return lstatSync(file)
  } catch {
    return undefined
  }
}

function realOf(file: string): string | undefined {
  try {
    return realpathSync(file)
  } catch {
    return undefined
  }
}
