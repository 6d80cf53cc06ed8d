import { spawn } from "node:child_process"
import { stat } from "node:fs/promises"
import { SnapshotUnavailableError } from "../errors.js"
import { GitCommandError } from "./git-command-error.js"

/** Where and how a snapshot's git commands run. */
export type GitContext = {
  /** The `git` binary: a name looked up on PATH, or a path. */
  binary: string
  /** Our git dir (left out of the snapshots when it lies inside the work tree). */
  gitDir: string
  /** Its real path when it was opened: a git dir that moved or became a link since is refused. */
  realGitDir: string
  /** The tracked directory (its real path). */
  workTree: string
  /** The tracked directory as the host spelled it, resolved: paths under it need no real path. */
  directory: string
  /** Paths no command records, compares or writes: relative to the work tree (see resolveExclusions). */
  exclusions: readonly string[]
  /** The environment every command gets (see gitEnvironment). */
  env: NodeJS.ProcessEnv
}

export type GitResult = { stdout: Buffer; stderr: string; exitCode: number }

export type GitOptions = {
  /** Written to git's stdin (pathspecs, object names). */
  input?: string
  /** The index file to use instead of the shared one (see withPrivateIndex). */
  indexFile?: string
  /** Resolve with a non-zero exit code instead of rejecting with GitCommandError. */
  allowFailure?: boolean
}

/**
 * Settings passed on every command line, so that nothing depends on (or needs writing to) a
 * config file (the git dir's own is rewritten before each use, see guardGitDir): no line-ending or attribute conversion that would make a restored file differ
 * from the recorded one, raw UTF-8 names, no daemon, and no automatic gc (our trees are
 * referenced by nothing, so a gc would prune them). The speed settings git offers
 * (core.untrackedCache, feature.manyFiles, index.threads, core.preloadIndex) made no
 * measurable difference to `ls-files --others` and `add` on 10,000 files: see bench/snapshot.ts.
 */
const CONFIG = [
  "core.bare=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.quotepath=false",
  "core.fsmonitor=false",
  // No hook runs, whatever a config or a git dir's hooks/ holds (/dev/null is no folder).
  "core.hooksPath=/dev/null",
  // The git dir is named on every command line, so git's ownership check guards nothing here;
  // a git dir or work tree owned by another user (a sandbox's files, say) must not be refused.
  "safe.directory=*",
  "core.longpaths=true",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.addEmbeddedRepo=false",
  "init.defaultBranch=main",
] as const

/**
 * The environment for git: the host's, minus every `GIT_*` variable (an inherited GIT_DIR,
 * GIT_WORK_TREE or GIT_INDEX_FILE, set when the host itself runs under a git hook, would
 * point our commands at the user's repository), with system and global config ignored and
 * messages in the C locale so that they read the same everywhere.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(base)) if (!key.startsWith("GIT_")) env[key] = value
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    // Git for Windows reads "/dev/null" as its null device too.
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    LC_ALL: "C",
    LANGUAGE: "C",
  }
}

/**
 * The longest one git command may take: a first record of a large tree takes seconds, and a
 * git stuck on a hung file system must not hold a step's tools (which wait for its snapshot)
 * forever. Killed, the command fails, and `track()` answers undefined.
 */
const COMMAND_TIMEOUT_MS = 120_000

/** Runs `git <args>` on our git dir and the work tree, from the work tree's root. */
export function runGit(context: GitContext, args: readonly string[], options: GitOptions = {}) {
  const env = options.indexFile ? { ...context.env, GIT_INDEX_FILE: options.indexFile } : context.env
  return spawnGit(context.binary, gitArguments(context, args), context.workTree, env, options)
}

/** The whole command line of `git <args>` on our git dir and the work tree. */
export function gitArguments(context: GitContext, args: readonly string[]): string[] {
  return ["--git-dir", context.gitDir, "--work-tree", context.workTree, ...configArgs(), ...args]
}

/** Runs `git <args>` with no repository (for `init`), from `cwd`. */
export function runBareGit(binary: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  return spawnGit(binary, [...configArgs(), ...args], cwd, env, {})
}

function configArgs(): string[] {
  return CONFIG.flatMap((setting) => ["-c", setting])
}

function spawnGit(
  binary: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: GitOptions,
): Promise<GitResult> {
  const name = commandName(args)
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    })
    // Our own timer rather than spawn's `timeout`, which Deno keeps running for a process it could
    // not start (no --allow-run): that process then lived on for the whole timeout.
    const timer = setTimeout(() => child.kill("SIGTERM"), COMMAND_TIMEOUT_MS)
    child.on("close", () => clearTimeout(timer))
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    // git may exit before reading all its input (a failing command); that is reported by its exit code.
    child.stdin.on("error", () => {})
    child.stdin.end(options.input ?? "")
    let started = true
    child.on("error", (error: NodeJS.ErrnoException) => {
      // A process that never started still emits "close" (with a negative code): report the cause.
      started = false
      clearTimeout(timer)
      spawnFailure(binary, cwd, error).then(reject, reject)
    })
    child.on("close", (exitCode) => {
      if (!started) return
      const result = { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString("utf8") }
      if (exitCode === 0 || (options.allowFailure && exitCode !== null))
        resolve({ ...result, exitCode: exitCode })
      else reject(GitCommandError.of(name, exitCode, result.stderr))
    })
  })
}

/** The subcommand, for error messages: the first argument after the global options. */
function commandName(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === "-c" || arg === "--git-dir" || arg === "--work-tree") index++
    else if (!arg.startsWith("-")) return arg
  }
  return "(no command)"
}

/** Why git could not start: ENOENT means a missing binary unless the directory went away. */
export async function spawnFailure(
  binary: string,
  cwd: string,
  error: NodeJS.ErrnoException,
): Promise<Error> {
  const cwdExists = await stat(cwd).then(
    (stats) => stats.isDirectory(),
    () => false,
  )
  if (!cwdExists)
    return new SnapshotUnavailableError({ message: `Directory not found: ${cwd}` }, { cause: error })
  const why =
    error.code === "ENOENT" ? "git not found" : `git could not be started (${error.code ?? error.message})`
  return new SnapshotUnavailableError({ message: `${why}: ${binary}` }, { cause: error })
}
