import { execFileSync, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chown, mkdtemp, realpath, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ExecOptions, ExecResult, Operations } from "../../../src/tools/index.js"

/**
 * Whether bubblewrap is installed. CI installs it (.ci/run); there the suites run regardless,
 * so that a missing bwrap fails them instead of skipping them.
 */
export const bwrapInstalled = (() => {
  try {
    execFileSync("bwrap", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    if (process.env.CI) return true
    console.warn("SKIPPED: the sandbox tests on real bubblewrap (bwrap is not installed); CI installs it")
    return false
  }
})()

/** The ordinary user a test running as root gives its directories to: commands run as their owner. */
export const NOBODY = 65534

/**
 * Real temporary directories (symlinks resolved), removed by `cleanup`. Run as root, they
 * belong to nobody, as the sandbox wants of a root agent's directory (its commands run as its owner).
 */
export function tempDirs() {
  const made: string[] = []
  return {
    async make(prefix: string): Promise<string> {
      const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
      made.push(dir)
      if (process.getuid?.() === 0) await chown(dir, NOBODY, NOBODY)
      return dir
    },
    async cleanup() {
      for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Runs a command through `operations.exec`, collecting its output. */
export async function run(
  operations: Operations,
  command: string,
  options: Partial<ExecOptions> & { cwd: string },
): Promise<ExecResult & { output: string }> {
  let output = ""
  const result = await operations.exec(command, {
    signal: new AbortController().signal,
    timeoutMs: 20_000,
    ...options,
    onData(chunk) {
      output += chunk
      options.onData?.(chunk)
    },
  })
  return { ...result, output }
}

/** A word no other process on the machine has in its command line. */
export function uniqueMarker(): string {
  return `agentloop-marker-${randomBytes(6).toString("hex")}`
}

/** The host pids of processes whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found = spawnSync("pgrep", ["-f", marker], { encoding: "utf8" })
  return found.stdout
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid)
}
