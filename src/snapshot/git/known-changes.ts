import { lstatSync, readFileSync, type Stats } from "node:fs"
import { readFile } from "node:fs/promises"
import path from "node:path"
import type { Snapshot } from "../port.js"
import { inside, isExcluded } from "./exclusions.js"
import type { GitContext } from "./git-process.js"
import { type LooseObjects, TREE_MODE } from "./loose-objects.js"
import { LARGE_FILE_LIMIT } from "./stage.js"
import { type Entry, lookup, rewrite } from "./tree-edit.js"

/**
 * A state recorded from known changes, and the paths it added or removed as `update-index
 * --index-info` takes them: path to "mode id", mode 0 removing (see GitSnapshot's index).
 */
export type Recorded = { tree: string; presence: Map<string, string> }

/** The settings of the git dir's config that decide how `git add` records a file. */
export type Settings = {
  fileMode: boolean
  symlinks: boolean
  ignoreCase: boolean
  precomposeUnicode: boolean
}

const HASH = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const LINK_MODE = "120000"
const FILE_MODES = new Set(["100644", "100755"])

/** Which of the untracked `files` `.gitignore` and the other exclude files leave out. */
export type IgnoredOf = (files: readonly string[]) => Promise<ReadonlySet<string>>

/**
 * The current state as `known` describes it, recorded without a scan: the tree `known.from` with
 * each changed path read again, following `git add --all`'s rules (ignored, excluded and large
 * untracked files stay out; `ignoredOf` says which new files are ignored, and its rejection is
 * passed on). Undefined whenever only git can tell what `git add --all` would record (a
 * `.gitignore` changed, a directory or link at a path, a nested repository, a state that is not
 * a loose tree here...): the caller then scans the whole tree. The file system calls are
 * synchronous, as loose-objects.ts explains.
 */
export async function recordKnown(
  context: GitContext,
  objects: LooseObjects,
  settings: Settings,
  known: Snapshot.Known,
  ignoredOf: IgnoredOf,
): Promise<Recorded | undefined> {
  const { from } = known
  if (!HASH.test(from) || !objects.readTree(from)) return undefined
  const files = await relativePaths(context, known.changed)
  if (!files) return undefined
  const entries = new Map<string, Entry>()
  const presence = new Map<string, string>()
  const untracked: [string, Stats][] = []
  for (const file of files) {
    const base = lookup(objects, from, file)
    if (base === null) return undefined
    const change = changeOf(context, settings, file, base)
    if (change.kind === "scan") return undefined
    if (change.kind === "new") untracked.push([file, change.stats])
    if (change.kind === "removed") {
      entries.set(file, undefined)
      presence.set(file, `0 ${"0".repeat(from.length)}`)
    }
    if (change.kind !== "file") continue
    const entry = blobOf(context, objects, settings, file, change.stats, base, from)
    if (!entry) return undefined
    entries.set(file, entry)
  }
  const names = untracked.map(([file]) => file)
  const ignored = names.length > 0 ? await ignoredOf(names) : new Set<string>()
  for (const [file, stats] of untracked) {
    if (ignored.has(file)) continue
    const entry = blobOf(context, objects, settings, file, stats, undefined, from)
    if (!entry) return undefined
    entries.set(file, entry)
    presence.set(file, `${entry.mode} ${entry.oid}`)
  }
  const split = [...entries].map(([file, entry]): [string[], Entry] => [file.split("/"), entry])
  const tree = rewrite(objects, from, split, from)
  if (tree === null) return undefined
  return { tree: tree ?? objects.writeTree([], from), presence }
}

/** What the git dir's config says (git writes it on init, probing the file system). */
export async function readSettings(gitDir: string): Promise<Settings> {
  return settingsOf(await readFile(path.join(gitDir, "config"), "utf8"))
}

/** The settings a config's text gives, git's defaults for those it does not. */
export function settingsOf(config: string): Settings {
  const core = /^\s*\[core\]([^[]*)/im.exec(config)?.[1] ?? ""
  const flag = (key: string, fallback: boolean) => {
    const value = new RegExp(`^\\s*${key}\\s*=\\s*(\\S+)`, "im").exec(core)?.[1]?.toLowerCase()
    return value === undefined ? fallback : ["true", "yes", "on", "1"].includes(value)
  }
  return {
    fileMode: flag("filemode", true),
    symlinks: flag("symlinks", true),
    ignoreCase: flag("ignorecase", false),
    precomposeUnicode: flag("precomposeunicode", false),
  }
}

/**
 * The changed paths relative to the work tree, deduplicated; paths outside it and excluded ones
 * dropped, and those git never records (inside a `.git`) too. Undefined for a path a scan must
 * see to: the directory itself, or a `.gitignore`, which changes what else is recorded.
 */
async function relativePaths(context: GitContext, changed: readonly string[]): Promise<string[] | undefined> {
  const files = new Set<string>()
  for (const entry of changed) {
    const file = await inside(context.directory, context.workTree, path.resolve(context.directory, entry))
    if (file === undefined) continue
    const segments = file.split("/")
    if (file === "" || segments.at(-1) === ".gitignore") return undefined
    if (segments.some((segment) => segment.toLowerCase() === ".git")) continue
    if (!isExcluded(file, context.exclusions)) files.add(file)
  }
  return [...files]
}

/**
 * What a changed path needs, its entry in the starting state being `base`: its blob read again,
 * its removal, nothing, git's word on whether a new file is ignored, or a scan.
 */
type Change =
  | { kind: "file" | "new"; stats: Stats }
  | { kind: "removed" }
  | { kind: "unchanged" }
  | { kind: "scan" }

const SCAN: Change = { kind: "scan" }

function changeOf(context: GitContext, settings: Settings, file: string, base: Entry): Change {
  // A folder on the way swapped for a link (out of the tree, perhaps): only git can say what
  // stands there now, and reading through the link would record what it leads to.
  if (!underFolders(context, file)) return SCAN
  const stats = statOf(path.join(context.workTree, file))
  if (stats === null) return SCAN
  if (!stats) {
    if (base?.mode === TREE_MODE) return SCAN
    return base ? { kind: "removed" } : { kind: "unchanged" }
  }
  if (!stats.isFile()) return SCAN
  if (!base) {
    // An untracked file too large to record stays out, as a scan leaves it out.
    if (stats.size > LARGE_FILE_LIMIT) return { kind: "unchanged" }
    return mayBeNew(context, settings, file) ? { kind: "new", stats } : SCAN
  }
  // A tracked file grown large stays recorded; git reads it better than one buffer would.
  if (stats.size > LARGE_FILE_LIMIT || (!FILE_MODES.has(base.mode) && base.mode !== LINK_MODE)) return SCAN
  return { kind: "file", stats }
}

/**
 * Whether a new file can be judged without git: not on a case-insensitive or
 * unicode-composing file system (where git matches names its own way), not under a link or in
 * a nested repository, and not a name git would read as pathspec magic.
 */
function mayBeNew(context: GitContext, settings: Settings, file: string): boolean {
  if (settings.ignoreCase || file.startsWith(":")) return false
  if (settings.precomposeUnicode && !/^[\x20-\x7e]*$/.test(file)) return false
  const segments = file.split("/")
  for (let depth = 1; depth < segments.length; depth++) {
    const directory = path.join(context.workTree, ...segments.slice(0, depth))
    if (statOf(path.join(directory, ".git")) !== undefined) return false
  }
  return true
}

/** Whether every folder between the work tree and `file` is a folder, not a link (or gone). */
function underFolders(context: GitContext, file: string): boolean {
  const segments = file.split("/")
  for (let depth = 1; depth < segments.length; depth++) {
    const stats = statOf(path.join(context.workTree, ...segments.slice(0, depth)))
    if (stats === undefined) return true
    if (!stats?.isDirectory()) return false
  }
  return true
}

/** The path's stats; undefined when nothing is there, null when it cannot be read. */
function statOf(file: string): Stats | undefined | null {
  try {
    return lstatSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : null
  }
}

/** Writes the file's blob; its mode as `git add` gives it (null when only git can tell). */
function blobOf(
  context: GitContext,
  objects: LooseObjects,
  settings: Settings,
  file: string,
  stats: Stats,
  base: Entry,
  like: string,
): Entry | null {
  const mode = modeOf(settings, stats, base)
  if (!mode) return null
  return { mode, oid: objects.writeBlob(readFileSync(path.join(context.workTree, file)), like) }
}

/** git's `ce_mode_from_stat` for a regular file. */
function modeOf(settings: Settings, stats: Stats, base: Entry): string | undefined {
  if (base?.mode === LINK_MODE && (!settings.symlinks || !settings.fileMode)) return undefined
  if (settings.fileMode) return stats.mode & 0o100 ? "100755" : "100644"
  return base?.mode ?? "100644"
}
