import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const childSource = fileURLToPath(new URL("./child.ts", import.meta.url))

/** How to start a child: the node arguments before `<dbfile> <seed>`. */
export type ChildCommand = { args: string[]; bundled: boolean; dispose(): void }

/**
 * Bundles child.ts (and the src it imports) into one file with esbuild, so a child starts in
 * about 0.15 s instead of tsx's 0.4-0.8 s and more kills land inside the run than in startup.
 * Packages stay external, resolved through a node_modules link next to the bundle. Without
 * esbuild (it comes with tsx and tsup), children run through tsx.
 */
export async function prepareChild(): Promise<ChildCommand> {
  let esbuild: typeof import("esbuild")
  try {
    esbuild = await import("esbuild")
  } catch {
    return { args: ["--import", "tsx", childSource], bundled: false, dispose: () => {} }
  }
  const directory = mkdtempSync(join(tmpdir(), "agentloop-durability-child-"))
  const dispose = () => rmSync(directory, { recursive: true, force: true })
  try {
    symlinkSync(join(root, "node_modules"), join(directory, "node_modules"), "dir")
    const outfile = join(directory, "child.mjs")
    await esbuild.build({
      entryPoints: [childSource],
      outfile,
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "silent",
    })
    return { args: [outfile], bundled: true, dispose }
  } catch (error) {
    dispose()
    throw error
  }
}

export type ChildRun = {
  /** Complete lines of stdout, in order. */
  lines: string[]
  /** Whether our SIGKILL ended it (else it exited by itself). */
  killed: boolean
  code: number | null
  stderr: string
  elapsedMs: number
}

/**
 * When to kill a child: at a time after its start, or as soon as it has printed a number of lines
 * (to replay a trial: the same point in the child's progress, whatever the machine's speed).
 */
export type Kill = { afterMs: number } | { afterLine: number }

/**
 * Runs one child and sends SIGKILL at `kill` unless it exited before. `onLine` hears each complete
 * line as it arrives (a fault that waits for the child to meet it watches them).
 */
export function runChild(
  command: ChildCommand,
  argv: string[],
  kill: Kill,
  onLine?: (text: string) => void,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...command.args, ...argv], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (onLine) {
        const complete = (stdout.slice(stdout.lastIndexOf("\n") + 1) + chunk).split("\n").slice(0, -1)
        for (const text of complete) onLine(text)
      }
      stdout += chunk
      if ("afterLine" in kill && stdout.split("\n").length - 1 >= kill.afterLine) child.kill("SIGKILL")
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    // A replay by lines still has a deadline: a child that stops printing must not hang the run.
    const timer = setTimeout(() => child.kill("SIGKILL"), "afterMs" in kill ? kill.afterMs : 60_000)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      // A line without its newline was cut by the kill: nothing was promised by it.
      const lines = stdout.split("\n").slice(0, -1)
      resolve({ lines, killed: signal === "SIGKILL", code, stderr, elapsedMs: performance.now() - started })
    })
  })
}
