// The CLI in a child process, run from source through tsx (no build needed): its output as it
// arrives, a bounded wait for a line, and its exit.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"

const binFile = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url))
// tsx's loader by its own path, since the CLI may run in a folder without node_modules.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli/${name}`, import.meta.url))

/** Every CLI still running, so a test file's afterAll can kill what a failed test left. */
export const runningClis = new Set<ChildProcessWithoutNullStreams>()

export type Exit = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

// The keys the CLI reads a model from, cleared so a developer's own never reach a test.
const modelKeys = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENTLOOP_BASE_URL", "AGENTLOOP_MODEL"]

export class CliProcess {
  stdout = ""
  stderr = ""
  readonly #child: ChildProcessWithoutNullStreams
  readonly #exit: Promise<Exit>

  constructor(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
    const env: Record<string, string | undefined> = { ...process.env, OPENCODE_SERVER_PASSWORD: undefined }
    for (const key of modelKeys) delete env[key]
    this.#child = spawn(process.execPath, ["--import", tsx, binFile, ...args], {
      env: { ...env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
    })
    runningClis.add(this.#child)
    this.#child.stdout.on("data", (chunk) => (this.stdout += chunk))
    this.#child.stderr.on("data", (chunk) => (this.stderr += chunk))
    this.#exit = new Promise((resolve) =>
      this.#child.once("close", (code, signal) => {
        runningClis.delete(this.#child)
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr })
      }),
    )
  }

  /** The first match of `pattern` in stdout; rejects when the process ends or `ms` pass first. */
  until(pattern: RegExp, ms = 20_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.stdout.match(pattern)
        if (!match) return
        done()
        resolve(match)
      }
      const ended = () => {
        done()
        reject(new Error(`the CLI ended before printing ${pattern}:\n${this.stdout}\n${this.stderr}`))
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`no ${pattern} within ${ms} ms:\n${this.stdout}\n${this.stderr}`))
      }, ms)
      const done = () => {
        clearTimeout(timer)
        this.#child.stdout.off("data", check)
        this.#child.off("close", ended)
      }
      this.#child.stdout.on("data", check)
      this.#child.once("close", ended)
      check()
    })
  }

  /** The URL the CLI serves on, once it has printed all it prints on start. */
  async url(): Promise<string> {
    await this.until(/^Ctrl-C stops it\.$/m)
    return this.stdout.match(/^Serving .* at (http:\/\/\S+)$/m)![1]!
  }

  /** How the process ended; rejects when it is still running after `ms`. */
  exited(ms = 20_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms)
    })
    return Promise.race([this.#exit, late]).finally(() => clearTimeout(timer))
  }

  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal)
  }
}
