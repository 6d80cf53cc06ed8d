import { readFileSync } from "node:fs"
import path from "node:path"
import { GitCommandError } from "./git-command-error.js"
import { type GitContext, runGit } from "./git-process.js"
import { type IgnoreProcess, startIgnoreProcess } from "./ignore-process.js"

/**
 * Which new files git ignores, asked of one long-lived `git check-ignore` (IgnoreProcess)
 * rather than a process per step, which costs more than the rest of a step's known changes.
 *
 * A running check-ignore reads the git dir's config, `info/exclude` and the excludes file once,
 * when it starts, and a directory's `.gitignore` once for as long as it keeps it, so its
 * answers could follow rules that have since changed. Before each question the files whose
 * rules apply to the paths asked are read again and compared, byte for byte, with what they
 * held before the process could first read them; when any differs, a new process answers.
 * Its answers are then what a `git add --all` run at that moment would decide.
 *
 * Calls come one at a time (GitSnapshot's queue). `ignored` rejects when git could not tell:
 * the caller then scans. After a failure the next question starts a new process.
 */
export type IgnoreCheck = {
  ignored(files: readonly string[]): Promise<Set<string>>
  /** Ends the process; later questions are refused. */
  close(): Promise<void>
}

/**
 * Longer than starting git and checking a few paths takes on a loaded machine; a process that
 * has not answered by then is killed, and the step scans instead.
 */
const ANSWER_TIMEOUT_MS = 10_000

/** A file's bytes, or the error code reading it gave (ENOENT: there is none). */
type Content = Buffer | string

type Helper = {
  process: IgnoreProcess
  /** Each rule file the process may have read, and what it held before it could. */
  seen: Map<string, Content>
  /** The rule files every path is subject to: the config, `info/exclude`, the excludes file. */
  shared: readonly string[]
}

export function createIgnoreCheck(context: GitContext, timeoutMs = ANSWER_TIMEOUT_MS): IgnoreCheck {
  let helper: Helper | undefined
  let closed = false

  async function retire(): Promise<void> {
    const retired = helper
    helper = undefined
    await retired?.process.end()
  }

  return {
    async ignored(files) {
      if (closed) throw GitCommandError.of("check-ignore", null, "the snapshot is closed")
      if (helper && !(helper.process.alive && unchanged(context, helper, files))) await retire()
      if (!helper) {
        const started = await startHelper(context, timeoutMs)
        helper = started
        // Rules that changed while it started may have been read either way.
        if (closed || !unchanged(context, started, files)) {
          await retire()
          throw GitCommandError.of("check-ignore", null, "the ignore rules changed while it started")
        }
      }
      return helper.process.ignored(files)
    },
    async close() {
      closed = true
      await retire()
    },
  }
}

/**
 * Reads the shared rule files, asks git where the excludes file is, then starts the process:
 * in that order, so that a file changed after it was read is seen changed at the next question.
 */
async function startHelper(context: GitContext, timeoutMs: number): Promise<Helper> {
  const seen = new Map<string, Content>()
  const config = path.join(context.gitDir, "config")
  const exclude = path.join(context.gitDir, "info", "exclude")
  for (const file of [config, exclude]) seen.set(file, contentOf(file))
  const excludesFile = await excludesFileOf(context)
  if (excludesFile) seen.set(excludesFile, contentOf(excludesFile))
  const shared = excludesFile ? [config, exclude, excludesFile] : [config, exclude]
  return { process: startIgnoreProcess(context, timeoutMs), seen, shared }
}

/**
 * Whether every rule file that applies to `files` holds what the process may have read: the
 * shared ones and each `.gitignore` from the root down to each file's directory. One not seen
 * yet is recorded as it is now, before the question lets the process read it.
 */
function unchanged(context: GitContext, helper: Helper, files: readonly string[]): boolean {
  const rules = new Set(helper.shared)
  for (const file of files) {
    const segments = file.split("/")
    for (let depth = 0; depth < segments.length; depth++)
      rules.add(path.join(context.workTree, ...segments.slice(0, depth), ".gitignore"))
  }
  for (const rule of rules) {
    const now = contentOf(rule)
    const before = helper.seen.get(rule)
    if (before === undefined) helper.seen.set(rule, now)
    else if (!same(before, now)) return false
  }
  return true
}

/**
 * The excludes file git reads: `core.excludesFile` (from the git dir's config: system and
 * global config are off, and guardGitDir leaves none there, so asked only to be sure), else
 * `$XDG_CONFIG_HOME/git/ignore`, else `$HOME/.config/git/ignore`.
 */
async function excludesFileOf(context: GitContext): Promise<string | undefined> {
  const args = ["config", "--path", "--get", "core.excludesFile"]
  const { stdout, stderr, exitCode } = await runGit(context, args, { allowFailure: true })
  if (exitCode === 0) return path.resolve(context.workTree, stdout.toString("utf8").replace(/\r?\n$/, ""))
  // 1: not set.
  if (exitCode !== 1) throw GitCommandError.of("config", exitCode, stderr)
  const { XDG_CONFIG_HOME, HOME } = context.env
  if (XDG_CONFIG_HOME) return path.resolve(context.workTree, XDG_CONFIG_HOME, "git", "ignore")
  return HOME ? path.resolve(context.workTree, HOME, ".config", "git", "ignore") : undefined
}

function contentOf(file: string): Content {
  try {
    return readFileSync(file)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "unreadable"
  }
}

function same(before: Content, now: Content): boolean {
  return typeof before === "string" || typeof now === "string" ? before === now : before.equals(now)
}
