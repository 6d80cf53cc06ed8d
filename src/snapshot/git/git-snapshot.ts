import path from "node:path"
import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"
import { quote } from "../../error/quote.js"
import type { DataPath } from "../../tool/data-path.js"
import { createSerialQueue } from "../../util/serial-queue.js"
import { SnapshotUnavailableError } from "../errors.js"
import type { Snapshot } from "../port.js"
import { restoreState, revertFiles } from "./checkout.js"
import { SnapshotDataDirError } from "./data-dir-error.js"
import { GitCommandError } from "./git-command-error.js"
import { guardGitDir } from "./git-dir-guard.js"
import { type GitContext, runGit } from "./git-process.js"
import { createIgnoreCheck, type IgnoreCheck } from "./ignore-check.js"
import { type Recorded, readSettings, recordKnown, type Settings } from "./known-changes.js"
import { type LooseObjects, looseObjects } from "./loose-objects.js"
import { joinNul } from "./nul.js"
import { withPrivateIndex } from "./private-index.js"
import { defaultDataDir, openRepository } from "./repository.js"
import { Patches, planRevert } from "./revert-plan.js"
import { recordTree, stage } from "./stage.js"
import { changedFiles, treeDiff } from "./tree-diff.js"
import { changedBetween } from "./tree-edit.js"

/**
 * What `new GitSnapshot(options)` takes: the directory to track, where its git dir lives, the
 * paths to leave out and the `git` binary. The constructor throws InvalidInputError, naming the
 * field, for a malformed option or an `exclude` entry that names the whole directory, and
 * SnapshotDataDirError when the data dir is the directory itself.
 */
export type GitSnapshotOptions = {
  /** The directory to track. It need not be a git repository; if it is, its `.git` is never touched. */
  directory: string
  /**
   * Where the snapshot git dirs live, one per tracked directory; default
   * `$XDG_DATA_HOME/agentloop/snapshot`, else `~/.local/share/agentloop/snapshot`. Inside
   * `directory` it is left out of the snapshots; `directory` itself is refused (SnapshotDataDirError).
   */
  dataDir?: string
  /**
   * Paths never recorded, compared or put back: relative to `directory`, or absolute. A path
   * brings its SQLite siblings (`-wal`, `-shm`, `-journal`); a directory, all it holds. Paths
   * outside `directory` are ignored, so a database file can be passed wherever it lives.
   */
  exclude?: readonly string[]
  /** The `git` binary, default `git` on PATH. */
  git?: string
}

const Options = z
  .strictObject({
    directory: z.string().min(1),
    dataDir: z.string().min(1).optional(),
    exclude: z.array(z.string().min(1)).readonly().optional(),
    git: z.string().min(1).optional(),
  })
  .superRefine((options, context) => {
    const directory = path.resolve(options.directory)
    options.exclude?.forEach((entry, index) => {
      if (path.resolve(directory, entry) !== directory) return
      const message = "leaves out the whole directory; name a file or a directory inside it"
      context.addIssue({ code: "custom", path: ["exclude", index], message })
    })
  })

const HASH = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/**
 * Snapshots over the `git` binary, in a git dir of its own (in the data dir, which snapshots
 * leave out when it lies inside the work tree): the user's `.git`, index and HEAD are never
 * read or written, and the directory need not be a repository. It records what `git add --all`
 * would (so `.gitignore` is honoured) except untracked files over 2 MB, nested repositories,
 * its own data dir and the paths in `exclude`.
 *
 * Calls on one instance run one at a time. Instances and processes tracking one directory
 * share its git dir safely: each call works on its own copy of the index (see withPrivateIndex).
 * Given the changes it is told of (Snapshot.Known), it records them alone, without git but for
 * one `git check-ignore` that it keeps running for new files once one came: `close()` ends it
 * (it never keeps the host's process alive).
 *
 * Without `git`, or with a data dir it cannot write, `track()` resolves undefined (see
 * `unavailableReason`) and the other methods reject with SnapshotUnavailableError, as they
 * do for a hash this history does not hold.
 */
export class GitSnapshot implements Snapshot {
  readonly #directory: string
  readonly #dataDir: string
  readonly #exclude: readonly string[]
  readonly #binary: string
  readonly #queue = createSerialQueue()
  #repository: Promise<GitContext> | undefined
  #unavailableReason: string | undefined
  #objects: LooseObjects | undefined
  #settings: Promise<Settings> | undefined
  #ignores: IgnoreCheck | undefined
  #closed = false
  /**
   * Files that states recorded from known changes added or removed, which the index does not
   * have yet. The index tells `git add --all` which files are tracked (and so recorded however
   * large or ignored they become): the next scan first puts these in, so that it records what
   * it would have recorded had every state been scanned.
   */
  readonly #unindexed = new Map<string, string>()

  constructor(options: GitSnapshotOptions) {
    const parsed = parseInput("GitSnapshot options", Options, options)
    this.#directory = path.resolve(parsed.directory)
    this.#dataDir = path.resolve(parsed.dataDir ?? defaultDataDir(process.env))
    if (this.#dataDir === this.#directory) throw SnapshotDataDirError.of(this.#directory, this.#dataDir)
    this.#exclude = parsed.exclude ?? []
    this.#binary = parsed.git ?? "git"
  }

  /** Its data dir, which the runtime keeps the coding tools and their commands away from. */
  get dataPaths(): readonly DataPath[] {
    return [{ path: this.#dataDir, kind: "directory" }]
  }

  /** Why the last `track()` resolved undefined; undefined when it succeeded. */
  get unavailableReason(): string | undefined {
    return this.#unavailableReason
  }

  /**
   * Records the current state. With `known`, only the files it names are read again (no scan,
   * and no git process but the check-ignore kept for new files): see Snapshot.Known. When only
   * a scan can tell (a `.gitignore` among them, a directory or link, a state not held here), it
   * scans.
   */
  track(known?: Snapshot.Known): Promise<string | undefined> {
    return this.#queue.run(async () => {
      try {
        const context = await this.#open()
        const recorded = known ? await this.#recordKnown(context, known) : undefined
        const hash =
          recorded?.tree ?? (await this.#scanning(context, (indexFile) => recordTree(context, indexFile)))
        this.#unavailableReason = undefined
        return hash
      } catch (error) {
        this.#unavailableReason = error instanceof Error ? error.message : String(error)
        return undefined
      }
    })
  }

  /** The files changed since `hash`; with `known`, compared without a scan as `track` records. */
  patch(hash: string, known?: Snapshot.Known): Promise<Snapshot.Patch> {
    return this.#withStates([hash], async (context) => {
      const recorded = known ? await this.#recordKnown(context, known) : undefined
      const objects = this.#objects
      const compared =
        recorded && objects ? changedBetween(objects, hash, recorded.tree, context.exclusions) : undefined
      const files =
        compared ??
        (await this.#scanning(context, async (indexFile) => {
          await stage(context, indexFile)
          return changedFiles(context, hash, indexFile)
        }))
      return { hash, files }
    })
  }

  diff(from: string, to?: string): Promise<Snapshot.FileDiff[]> {
    return this.#withStates(to === undefined ? [from] : [from, to], async (context) => {
      const target = to ?? (await this.#scanning(context, (indexFile) => recordTree(context, indexFile)))
      return treeDiff(context, from, target)
    })
  }

  restore(hash: string): Promise<void> {
    return this.#withStates([hash], (context) =>
      this.#scanning(context, (indexFile) => restoreState(context, hash, indexFile)),
    )
  }

  async revert(patches: readonly Snapshot.Patch[]): Promise<void> {
    const plan = planRevert(parseInput("patches", Patches, patches))
    if (plan.size === 0) return
    return this.#withStates([...plan.keys()], async (context) => {
      await withPrivateIndex(context.gitDir, (indexFile) => revertFiles(context, plan, indexFile))
    })
  }

  /**
   * Ends the `git check-ignore` process kept for new files, once the calls made before have
   * finished. Later calls fail as they do without `git`: `track()` resolves undefined, the others
   * reject with SnapshotUnavailableError.
   */
  close(): Promise<void> {
    return this.#queue.run(async () => {
      this.#closed = true
      await this.#ignores?.close()
      this.#ignores = undefined
    })
  }

  /**
   * Runs `operation` in turn, once the git dir is ready, refusing a hash that is not one and
   * explaining a git failure caused by a hash this history does not hold.
   */
  #withStates<T>(hashes: readonly unknown[], operation: (context: GitContext) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      for (const hash of hashes) {
        parseInput("snapshot hash", z.string(), hash)
        if (!HASH.test(hash as string)) throw unknownState(hash)
      }
      const context = await this.#open()
      try {
        return await operation(context)
      } catch (error) {
        if (!GitCommandError.isInstance(error)) throw error
        for (const hash of hashes)
          if (!(await isTree(context, hash as string))) throw unknownState(hash, error)
        throw error
      }
    })
  }

  /**
   * The state `known` describes, recorded from its files alone; undefined when a scan must
   * decide, or when recording them failed in any way (the scan then reports what is wrong).
   */
  async #recordKnown(context: GitContext, known: Snapshot.Known): Promise<Recorded | undefined> {
    try {
      this.#objects ??= looseObjects(context.gitDir)
      this.#settings ??= readSettings(context.gitDir)
      this.#ignores ??= createIgnoreCheck(context)
      const settings = await this.#settings
      const recorded = await recordKnown(context, this.#objects, settings, known, this.#ignores.ignored)
      for (const [file, entry] of recorded?.presence ?? []) this.#unindexed.set(file, entry)
      return recorded
    } catch {
      this.#settings = undefined
      return undefined
    }
  }

  /** Runs a scan on a private index, which first takes in the files known changes added or removed. */
  async #scanning<T>(context: GitContext, operation: (indexFile: string) => Promise<T>): Promise<T> {
    const pending = [...this.#unindexed]
    const result = await withPrivateIndex(context.gitDir, async (indexFile) => {
      if (pending.length > 0) {
        const lines = pending.map(([file, entry]) => `${entry}\t${file}`)
        // Only which files are tracked counts: the scan reads each of them again, and a
        // failure here costs nothing else.
        const args = ["update-index", "--add", "--replace", "-z", "--index-info"]
        await runGit(context, args, { indexFile, input: joinNul(lines), allowFailure: true })
      }
      return operation(indexFile)
    })
    for (const [file, entry] of pending) if (this.#unindexed.get(file) === entry) this.#unindexed.delete(file)
    return result
  }

  /**
   * The git dir, initialised on first use (tried again on the next call when that failed), and
   * put back in order (see guardGitDir) at each.
   */
  async #open(): Promise<GitContext> {
    if (this.#closed) throw new SnapshotUnavailableError({ message: "GitSnapshot closed" })
    this.#repository ??= openRepository({
      directory: this.#directory,
      dataDir: this.#dataDir,
      exclude: this.#exclude,
      binary: this.#binary,
      env: process.env,
    })
    let context: GitContext
    try {
      context = await this.#repository
    } catch (error) {
      this.#repository = undefined
      throw error
    }
    // Before each use: the agent's commands may have written the git dir since the last.
    guardGitDir(context.gitDir, context.realGitDir)
    return context
  }
}

async function isTree(context: GitContext, hash: string): Promise<boolean> {
  const { exitCode } = await runGit(context, ["cat-file", "-e", `${hash}^{tree}`], { allowFailure: true })
  return exitCode === 0
}

function unknownState(hash: unknown, cause?: unknown): SnapshotUnavailableError {
  return new SnapshotUnavailableError({ message: `Unknown snapshot state: ${quote(hash)}` }, { cause })
}
