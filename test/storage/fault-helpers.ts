// Helpers of the storage fault tests: a child process holding a SQLite lock, and a probe of
// how long the event loop went without running.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import fs from "node:fs"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import { sqliteDrivers } from "./sqlite-drivers.js"

const holderFile = fileURLToPath(new URL("../fixtures/sqlite-lock-holder.ts", import.meta.url))

/** Resolves when `condition` holds, checking on every turn of the event loop; rejects after `ms`. */
export async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * test/fixtures/sqlite-lock-holder.ts in a child process, locking the file through `driver`
 * (default: the first driver this runtime loads; the lock is SQLite's, whichever driver takes it).
 */
export class LockHolder {
  readonly lines: string[] = []
  readonly exited: Promise<void>
  readonly #child: ChildProcessWithoutNullStreams

  constructor(
    file: string,
    mode: "write" | "exclusive",
    options: { holdMs?: number; driver?: SqliteDriver } = {},
  ) {
    const { holdMs, driver = sqliteDrivers()[0] ?? "node:sqlite" } = options
    const args = [
      "--import",
      "tsx",
      holderFile,
      file,
      mode,
      driver,
      ...(holdMs === undefined ? [] : [String(holdMs)]),
    ]
    this.#child = spawn(process.execPath, args)
    this.exited = new Promise((resolve) => this.#child.once("exit", () => resolve()))
    createInterface({ input: this.#child.stdout }).on("line", (line) => this.lines.push(line))
  }

  /** Resolves once the child holds its lock. */
  locked(): Promise<void> {
    return until(() => this.lines.includes("locked"), 20_000, "the child process to take its lock")
  }

  get released(): boolean {
    return this.lines.includes("released")
  }

  async release(): Promise<void> {
    if (this.#child.exitCode === null) this.#child.stdin.write("release\n")
    await this.exited
  }

  kill(): void {
    this.#child.kill("SIGKILL")
  }
}

/**
 * Measures the longest time the event loop did not run timers (a setInterval drift probe).
 * `stop()` also counts the gap up to its own call, so a block that ended just before is seen.
 */
export function stallProbe(intervalMs = 5): { stop(): number } {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last - intervalMs)
    last = now
  }, intervalMs)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(longest, performance.now() - last - intervalMs)
    },
  }
}

/** Writes `file` until the file system it is on is full (ENOSPC); anything else fails. */
export function fillDisk(file: string): void {
  const fd = fs.openSync(file, "w")
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error
  } finally {
    fs.closeSync(fd)
  }
}
