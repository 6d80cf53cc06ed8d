import { type ChildProcess, spawn } from "node:child_process"
import type { ExecOptions, ExecResult } from "../operations.js"
import { collectProcess, type ProcessTree } from "./collect-process.js"

const WINDOWS = process.platform === "win32"

/**
 * Runs `command` with `bash -c` (`sh -c` where bash is missing) in `options.cwd`, as the leader
 * of its own process group. Output goes to `onData` as text as it arrives (a character split
 * across chunks is kept whole). On abort or timeout the whole group gets SIGTERM, then SIGKILL;
 * the promise resolves once the shell has exited, without waiting for stray background jobs.
 * On Windows only the shell itself is signalled.
 */
export async function localExec(command: string, options: ExecOptions): Promise<ExecResult> {
  if (options.signal.aborted) return { exitCode: null, timedOut: false, aborted: true }
  try {
    return await run("bash", command, options)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
    return run("sh", command, options)
  }
}

function run(shell: string, command: string, options: ExecOptions): Promise<ExecResult> {
  const child = spawn(shell, ["-c", command], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: !WINDOWS,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  })
  return collectProcess(child, options, processGroup(child))
}

/** The child's process group (it leads one, being detached); on Windows, the child alone. */
function processGroup(child: ChildProcess): ProcessTree {
  return {
    signal(signal) {
      if (child.pid === undefined) return
      try {
        if (WINDOWS) child.kill(signal)
        else process.kill(-child.pid, signal)
      } catch {
        // The group is already gone.
      }
    },
  }
}
