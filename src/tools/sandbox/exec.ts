import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import type { Readable } from "node:stream"
import { collectProcess, type ProcessTree } from "../bash/collect-process.js"
import { resolveLinks } from "../local-operations.js"
import type { ExecOptions, ExecResult } from "../operations.js"
import { type BwrapInput, bwrapArgs } from "./bwrap-args.js"
import { dataCovers } from "./data-covers.js"
import { SandboxPathError } from "./errors.js"
import type { SandboxUser } from "./options.js"
import { bwrapMissing } from "./probe.js"
import { within } from "./roots.js"

// bwrap writes its JSON info, with the sandbox's pid on the host, to this descriptor.
const INFO_FD = 3

/** What every command of one sandbox shares. */
export type SandboxSetup = Omit<BwrapInput, "cwd" | "command" | "infoFd"> & {
  bwrap: string
  /** Real paths commands may run in. */
  writable: readonly string[]
  /** Whom bwrap starts as (the agent being root), or undefined for the agent's own user. */
  user?: SandboxUser | undefined
  /** The command's environment, given the call's own variables. */
  env(exec: Record<string, string> | undefined): Record<string, string>
}

/**
 * Runs `command` in a new sandbox, as `localExec` runs it on the host. Its working directory
 * must lie in a writable path (SandboxPathError otherwise). When the command exits, the sandbox
 * ends and takes whatever it left running; on abort or timeout the sandbox is killed whole.
 */
export async function sandboxExec(
  setup: SandboxSetup,
  command: string,
  options: ExecOptions,
): Promise<ExecResult> {
  if (options.signal.aborted) return { exitCode: null, timedOut: false, aborted: true }
  const cwd = await resolveLinks(path.resolve(options.cwd), 0)
  if (!within(cwd, setup.writable)) throw SandboxPathError.outside(options.cwd, cwd, "run", setup.writable)
  const covers = await dataCovers(setup.mounts, options.protectedPaths ?? [])
  const child = spawn(setup.bwrap, bwrapArgs({ ...setup, cwd, command, infoFd: INFO_FD, covers }), {
    cwd: "/",
    // bwrap hands its own environment to the command: built from nothing, not inherited.
    env: setup.env(options.env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    // bwrap then makes an unprivileged user namespace: nothing in it is the host's root.
    ...(setup.user ? { uid: setup.user.uid, gid: setup.user.gid } : {}),
  })
  return collectProcess(child, options, sandboxTree(child)).catch((error: unknown) => {
    // Installed when the sandbox was made, gone since.
    throw (error as NodeJS.ErrnoException).code === "ENOENT" ? bwrapMissing(setup.bwrap) : error
  })
}

/**
 * The sandbox's processes. Its init (pid 1 inside, whose host pid bwrap reports) ends them all
 * when it dies, and bwrap exits only after that, so a killed call leaves nothing behind. Before
 * the pid is known, bwrap's own process group is killed: init follows it (--die-with-parent).
 * SIGKILL at once: the command runs in a session of its own, where no SIGTERM would reach it.
 */
function sandboxTree(child: ChildProcess): ProcessTree {
  let sandboxPid: number | undefined
  let info = ""
  const stream = child.stdio[INFO_FD] as Readable | null
  stream?.setEncoding("utf8")
  stream?.on("data", (chunk: string) => {
    info += chunk
    sandboxPid ??= Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1]) || undefined
  })
  stream?.on("error", () => {})
  child.once("exit", () => stream?.destroy())
  return {
    signal() {
      // Once bwrap has exited, its pids may belong to someone else.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
      try {
        process.kill(sandboxPid ?? -child.pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    },
  }
}
