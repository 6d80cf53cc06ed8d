import { spawn } from "node:child_process"
import { Socket } from "node:net"
import { quote } from "../../error/quote.js"
import { GitCommandError } from "./git-command-error.js"
import { type GitContext, gitArguments, spawnFailure } from "./git-process.js"
import { joinNul, nulRecords } from "./nul.js"

/**
 * One `git check-ignore` reading paths on its standard input for as long as it lives. With
 * `--non-matching --verbose` it answers every path, ignored or not, so an answer's end is known
 * without closing the input. It reads each ignore file once (see IgnoreCheck for when it must be
 * replaced). Idle, it keeps the host's process from exiting no more than a closed file would.
 */
export type IgnoreProcess = {
  /**
   * Which of `files` (relative to the work tree, untracked) git ignores. Rejects with
   * GitCommandError, and ends the process, when it dies, answers for another path or takes
   * longer than the timeout it was started with; with SnapshotUnavailableError when git cannot
   * start. Answers come in the order asked.
   */
  ignored(files: readonly string[]): Promise<Set<string>>
  /** False once the process failed or was ended: it answers nothing more. */
  readonly alive: boolean
  /** Ends the process; resolves once it has exited, or after a few seconds if it will not say. */
  end(): Promise<void>
}

const ARGUMENTS = ["check-ignore", "--stdin", "-z", "--non-matching", "--verbose", "--no-index"]
/** `--verbose -z` answers a path with four fields: the rule's source, line and pattern, the path. */
const FIELDS = 4
const STDERR_LIMIT = 4000
const END_TIMEOUT_MS = 5_000

export function startIgnoreProcess(context: GitContext, timeoutMs: number): IgnoreProcess {
  const child = spawn(context.binary, gitArguments(context, ARGUMENTS), {
    cwd: context.workTree,
    // Without it git holds its answers in a buffer until its input ends.
    env: { ...context.env, GIT_FLUSH: "1" },
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  })
  // A question's timer keeps the host alive while it waits for the answer; nothing else does.
  child.unref()
  for (const stream of [child.stdin, child.stdout, child.stderr]) if (stream instanceof Socket) stream.unref()
  let failure: Error | undefined
  let startFailure: Promise<Error> | undefined
  let stderr = ""
  const exited = new Promise<void>((resolve) => {
    child.once("close", () => resolve())
    child.once("error", () => resolve())
  })
  const fail = (error: Error) => {
    failure ??= error
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    questions.rejectAll(failure)
  }
  const questions = askedInOrder(fail)

  child.stdout.on(
    "data",
    nulRecords(FIELDS, ([, , pattern, file]) => questions.answer(pattern!, file!)),
  )
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_LIMIT)
  })
  // A write to a process that died fails; its "close" says why.
  child.stdin.on("error", () => {})
  child.on("error", (error) => {
    startFailure ??= spawnFailure(context.binary, context.workTree, error)
    startFailure.then(fail, fail)
  })
  child.on("close", (exitCode) => {
    if (!startFailure) fail(GitCommandError.of("check-ignore", exitCode, stderr))
  })

  return {
    get alive() {
      return failure === undefined && startFailure === undefined
    },
    ignored(files) {
      if (failure) return Promise.reject(failure)
      if (files.length === 0) return Promise.resolve(new Set())
      const answer = questions.ask(files, timeoutMs)
      child.stdin.write(joinNul(files))
      return answer
    },
    async end() {
      fail(GitCommandError.of("check-ignore", null, "ended by the snapshot"))
      let timer: NodeJS.Timeout | undefined
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, END_TIMEOUT_MS)
      })
      await Promise.race([exited, bound])
      clearTimeout(timer)
    },
  }
}

type Question = {
  files: readonly string[]
  answered: number
  ignored: Set<string>
  resolve: (ignored: Set<string>) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

/** The questions asked and not yet answered, oldest first; `fail` ends the process. */
function askedInOrder(fail: (error: Error) => void) {
  const questions: Question[] = []
  return {
    ask(files: readonly string[], timeoutMs: number): Promise<Set<string>> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          fail(GitCommandError.of("check-ignore", null, `no answer within ${timeoutMs} ms`))
        }, timeoutMs)
        questions.push({ files, answered: 0, ignored: new Set(), resolve, reject, timer })
      })
    },
    answer(pattern: string, file: string): void {
      const question = questions[0]
      if (!question || file !== question.files[question.answered]) {
        fail(GitCommandError.of("check-ignore", null, `answered for ${quote(file)}, not a path asked`))
        return
      }
      // A pattern starting with "!" is a negation that matched: the path is not ignored.
      if (pattern !== "" && !pattern.startsWith("!")) question.ignored.add(file)
      if (++question.answered < question.files.length) return
      questions.shift()
      clearTimeout(question.timer)
      question.resolve(question.ignored)
    },
    rejectAll(error: Error): void {
      for (const question of questions.splice(0)) {
        clearTimeout(question.timer)
        question.reject(error)
      }
    },
  }
}
