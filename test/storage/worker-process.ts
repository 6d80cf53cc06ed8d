// A runtime in a child process for the multi-process tests (test/fixtures/*-worker.ts): commands
// go in as JSON lines on stdin; answers (by id) and events come back as JSON lines on stdout.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { createInterface } from "node:readline"

export type Line = {
  id?: number
  ok?: boolean
  value?: unknown
  error?: string
  event?: string
  [key: string]: unknown
}

/** Every worker still running, so a test file's afterAll can kill what a failed test left. */
export const runningWorkers = new Set<ChildProcessWithoutNullStreams>()

export class WorkerProcess {
  readonly events: Line[] = []
  readonly #child: ChildProcessWithoutNullStreams
  readonly #pending = new Map<number, { resolve: (line: Line) => void; reject: (error: Error) => void }>()
  readonly #watchers = new Map<() => void, (error: Error) => void>()
  #next = 0
  /** Why the child is gone: every wait on it then fails at once instead of waiting for a test timeout. */
  #exited: Error | undefined

  constructor(file: string, env: Record<string, string | undefined>, options: { stderr?: boolean } = {}) {
    this.#child = spawn(process.execPath, ["--import", "tsx", file], { env: { ...process.env, ...env } })
    runningWorkers.add(this.#child)
    let stderr = ""
    this.#child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000)
      if (options.stderr) process.stderr.write(chunk)
    })
    const lines = createInterface({ input: this.#child.stdout })
    lines.on("line", (text) => {
      const line = JSON.parse(text) as Line
      if (line.id !== undefined) this.#pending.get(line.id)?.resolve(line)
      else this.events.push(line)
      for (const watcher of this.#watchers.keys()) watcher()
    })
    // After the last line: an answer the child wrote just before exiting still counts.
    lines.on("close", () => {
      runningWorkers.delete(this.#child)
      const { exitCode, signalCode } = this.#child
      this.#exited = new Error(
        `worker exited (${signalCode ?? `code ${exitCode}`})${stderr ? `; its stderr ended with:\n${stderr}` : ""}`,
      )
      for (const { reject } of this.#pending.values()) reject(this.#exited)
      for (const reject of this.#watchers.values()) reject(this.#exited)
      this.#watchers.clear()
    })
  }

  /** Resolves when an event matching `test` has arrived (or had already). */
  until(test: (line: Line) => boolean): Promise<Line> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(test)
        if (!found) return
        this.#watchers.delete(check)
        resolve(found)
      }
      this.#watchers.set(check, reject)
      check()
      if (this.#watchers.has(check) && this.#exited) reject(this.#exited)
    })
  }

  async call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next++
    if (this.#exited) throw this.#exited
    const answer = new Promise<Line>((resolve, reject) => this.#pending.set(id, { resolve, reject }))
    this.#child.stdin.write(`${JSON.stringify({ id, op, ...args })}\n`)
    const line = await answer
    if (!line.ok) throw new Error(`worker ${op}: ${line.error}`)
    return line.value as T
  }

  /** Freezes the process (SIGSTOP): its connections, and so its locks, stay open, but it acts on nothing. */
  pause(): void {
    this.#child.kill("SIGSTOP")
  }

  /** Lets a paused process go on (SIGCONT). */
  resume(): void {
    this.#child.kill("SIGCONT")
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      this.#child.once("exit", () => resolve())
      this.#child.kill("SIGKILL")
    })
  }

  async close(): Promise<void> {
    await this.call("close")
    this.#child.stdin.end()
  }
}
