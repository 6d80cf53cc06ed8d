import { existsSync, statSync } from "node:fs"
import * as path from "node:path"
import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"

/**
 * What `sandboxOperations` takes. Paths may be absolute or relative to `directory`; each must
 * exist. See docs/sandbox.md.
 */
export type SandboxOptions = {
  /** The project directory: writable, and where commands may run. */
  directory: string
  /** More writable paths (a cache, a second checkout). Commands may run in any writable path. */
  writable?: string[]
  /** More read-only paths besides the system ones (`/usr`, `/etc`…): a toolchain in `/opt`, a shared library. */
  readable?: string[]
  /**
   * Whether commands reach the network. Default false: they get a network namespace of their
   * own, with a loopback that is not the host's. True shares the host's network whole.
   */
  network?: boolean
  /** Variables set in every command. */
  env?: Record<string, string>
  /**
   * Names of host variables passed to commands, replacing the default `PATH`, `LANG`, `LC_ALL`,
   * `TERM`, `TZ`. A `PATH` is always set: the host's, cut down to the folders the sandbox
   * mounts, when listed, else `/usr/local/bin:/usr/bin:/bin`. Nothing else of the host's
   * environment (API keys, tokens) reaches a command.
   */
  passEnv?: string[]
  /** Per-command limits; see `SandboxLimits`. */
  limits?: SandboxLimits
  /** The bubblewrap binary; default `bwrap` on PATH. */
  bwrap?: string
  /**
   * Whom commands run as when the agent runs as root: an ordinary user (not uid 0) that can
   * write the directory and the `writable` paths. Default the directory's owner, unless that is
   * root: then `sandboxOperations` throws SandboxUnavailableError (reason "root"). bwrap starts
   * as this user, so that no command runs as the host's root (the kernel's exemptions of root:
   * sysctls, the process limit, setuid-root files). Files the file tools make belong to it too.
   * Ignored when the agent is not root: commands run as the agent's user, as bwrap can only.
   */
  user?: SandboxUser
}

/** A user commands run as: its uid and gid on the host, neither 0. */
export type SandboxUser = { uid: number; gid: number }

/**
 * Limits on each command, set with `ulimit` before it starts. A limit the host already holds
 * lower stays lower.
 */
export type SandboxLimits = {
  /**
   * How many processes the command's user may have, default 512 (since Linux 5.14 the kernel
   * counts those in its sandbox, before that all of the user's). It holds for an agent running as
   * root too, whose commands run as an ordinary user (`SandboxOptions.user`).
   */
  processes?: number
  /** The address space of each process in bytes, default 4 GiB. */
  memoryBytes?: number
  /** The largest file a process may write, in bytes, default 1 GiB. */
  fileSizeBytes?: number
  /** CPU time of each process in seconds; default none (the call's timeout bounds the command). */
  cpuSeconds?: number
}

/** The limits with their defaults filled in. */
export type Limits = Required<Omit<SandboxLimits, "cpuSeconds">> & Pick<SandboxLimits, "cpuSeconds">

export const DEFAULT_LIMITS: Limits = {
  processes: 512,
  memoryBytes: 4 * 1024 ** 3,
  fileSizeBytes: 1024 ** 3,
}

export const DEFAULT_PASS_ENV: readonly string[] = ["PATH", "LANG", "LC_ALL", "TERM", "TZ"]

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/
const variable = z.string().regex(VARIABLE, "is not a variable name")
const count = z.number().int().positive()

const Options = z
  .strictObject({
    directory: z.string().min(1),
    writable: z.array(z.string().min(1)).optional(),
    readable: z.array(z.string().min(1)).optional(),
    network: z.boolean().optional(),
    env: z.record(variable, z.string()).optional(),
    passEnv: z.array(variable).optional(),
    limits: z
      .strictObject({
        processes: count.optional(),
        memoryBytes: count.optional(),
        fileSizeBytes: count.optional(),
        cpuSeconds: count.optional(),
      })
      .optional(),
    bwrap: z.string().min(1).optional(),
    user: z
      .strictObject({
        uid: z.number().int().positive("must not be root (0)"),
        gid: z.number().int().positive("must not be root's group (0)"),
      })
      .optional(),
  })
  .superRefine((options, context) => {
    const directory = path.resolve(options.directory)
    const check = (file: string, at: (string | number)[]) => {
      const absolute = path.resolve(directory, file)
      if (!existsSync(absolute))
        context.addIssue({ code: "custom", path: at, message: `${absolute} does not exist` })
    }
    check(directory, ["directory"])
    if (existsSync(directory) && !statSync(directory).isDirectory())
      context.addIssue({ code: "custom", path: ["directory"], message: `${directory} is not a directory` })
    for (const field of ["writable", "readable"] as const)
      options[field]?.forEach((file, index) => {
        check(file, [field, index])
      })
  })

/** The options checked, with absolute paths and the defaults filled in. */
export type ResolvedOptions = {
  directory: string
  writable: string[]
  readable: string[]
  network: boolean
  env: Record<string, string>
  passEnv: readonly string[]
  limits: Limits
  bwrap: string
  user: SandboxUser | undefined
}

/** Checks the options (InvalidInputError naming the field) and fills in the defaults. */
export function resolveOptions(options: SandboxOptions): ResolvedOptions {
  const parsed = parseInput("sandboxOperations options", Options, options)
  const directory = path.resolve(parsed.directory)
  return {
    directory,
    writable: (parsed.writable ?? []).map((file) => path.resolve(directory, file)),
    readable: (parsed.readable ?? []).map((file) => path.resolve(directory, file)),
    network: parsed.network ?? false,
    env: parsed.env ?? {},
    passEnv: parsed.passEnv ?? DEFAULT_PASS_ENV,
    limits: { ...DEFAULT_LIMITS, ...parsed.limits },
    bwrap: parsed.bwrap ?? "bwrap",
    user: parsed.user,
  }
}
