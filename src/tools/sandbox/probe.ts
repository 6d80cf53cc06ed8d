import { spawnSync } from "node:child_process"
import { accessSync, constants, statSync } from "node:fs"
import * as path from "node:path"
import { SandboxUnavailableError } from "./errors.js"
import type { SandboxUser } from "./options.js"
import { ROOT_FIX, UNWRITABLE } from "./run-as.js"

const PROBE_TIMEOUT_MS = 10_000

const INSTALL =
  'Install bubblewrap: "apt-get install bubblewrap" (Debian, Ubuntu), "dnf install bubblewrap" (Fedora), ' +
  '"pacman -S bubblewrap" (Arch), "apk add bubblewrap" (Alpine); or pass its path as the `bwrap` option.'

const NAMESPACES =
  "Allow unprivileged user namespaces: " +
  '"sysctl -w kernel.unprivileged_userns_clone=1" (Debian before 11, older kernels); ' +
  '"sysctl -w user.max_user_namespaces=15000" where it is 0 (RHEL, CentOS); ' +
  'on Ubuntu 23.10 and later AppArmor restricts them: "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", ' +
  "or an AppArmor profile for bwrap that allows userns. In a container, its seccomp and AppArmor profiles must " +
  "allow them too (Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined)."

const PLATFORM =
  "The sandbox needs Linux (bubblewrap); macOS and Windows are not supported yet. Run the agent in a Linux VM or " +
  "container, or choose to run unsandboxed with localOperations."

const NOT_STARTED =
  "Under Deno, grant the sandbox its processes: deno run --allow-run (it starts bwrap, and bwrap the commands)."

// bwrap's words when the kernel, a sysctl, AppArmor or seccomp keeps it from making its namespaces.
const NAMESPACE_FAILURE =
  /new namespace|user namespace|uid map|gid map|setgroups|unshare|clone|loopback|RTM_NEWADDR|Operation not permitted/i

/** Fails with reason "platform" anywhere but Linux. */
export function requireLinux(platform: NodeJS.Platform): void {
  if (platform !== "linux")
    throw SandboxUnavailableError.of("platform", `this platform (${platform}) has no bubblewrap.`, PLATFORM)
}

/**
 * The bwrap binary's absolute path: `bwrap` itself when it names a path, else the first match
 * on the host's PATH. Found once, here: commands get a PATH of their own, which bwrap must not
 * be looked up on.
 */
export function locateBwrap(bwrap: string, hostPath: string | undefined): string {
  if (bwrap.includes("/")) return path.resolve(bwrap)
  const found = (hostPath ?? "")
    .split(":")
    .filter(Boolean)
    .map((folder) => path.resolve(folder, bwrap))
    .find(isExecutableFile)
  if (found === undefined) throw bwrapMissing(bwrap)
  return found
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** The error for a bwrap binary that is not there. */
export function bwrapMissing(bwrap: string): SandboxUnavailableError {
  return SandboxUnavailableError.of("missing", `${bwrap} is not installed, or not on PATH.`, INSTALL)
}

/** The version `bwrap --version` reports; fails with what keeps it from running. */
export function bwrapVersion(bwrap: string): string {
  const output = runProbe(bwrap, ["--version"], {})
  return /bubblewrap\s+(\S+)/.exec(output)?.[1] ?? "unknown"
}

/**
 * Runs `args` (a sandbox running `true`, or `unwritableCheck` when commands run as `user`) once,
 * as `user` when given; fails with what keeps the sandbox from starting, and with reason "root"
 * when the user cannot reach or write the sandbox's paths.
 */
export function trySandbox(
  bwrap: string,
  args: string[],
  env: Record<string, string>,
  user?: SandboxUser,
): void {
  const as = user ? `commands run as uid ${user.uid} (gid ${user.gid}), ` : ""
  let output: string
  try {
    output = runProbe(bwrap, args, env, user)
  } catch (error) {
    // bwrap, started as the user, could not enter or mount a path of the sandbox.
    const failed = SandboxUnavailableError.isInstance(error) && error.data.reason === "failed"
    if (user && failed && /Permission denied/.test(error.data.message))
      throw SandboxUnavailableError.of(
        "root",
        `${as}which cannot reach a path: ${error.data.message}`,
        ROOT_FIX,
      )
    throw error
  }
  const unwritable = output
    .split("\n")
    .filter((line) => line.startsWith(UNWRITABLE))
    .map((line) => line.slice(UNWRITABLE.length))
  if (unwritable.length > 0)
    throw SandboxUnavailableError.of("root", `${as}which cannot write ${unwritable.join(", ")}.`, ROOT_FIX)
}

function runProbe(bwrap: string, args: string[], env: Record<string, string>, user?: SandboxUser): string {
  const result = spawnSync(bwrap, args, {
    // As exec does: started as `user`, bwrap could not enter the agent's own current directory
    // (Deno's spawnSync then says nothing at all, Node and Bun do not mind).
    cwd: "/",
    env,
    encoding: "utf8",
    timeout: PROBE_TIMEOUT_MS,
    stdio: "pipe",
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  })
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code
    if (code === "ENOENT") throw bwrapMissing(bwrap)
    throw SandboxUnavailableError.of("failed", `${bwrap} could not run: ${result.error.message}.`, INSTALL)
  }
  // Deno's spawnSync answers a process it could not start (no --allow-run) with neither an
  // error nor an exit status.
  if (typeof result.status !== "number" && !result.signal)
    throw SandboxUnavailableError.of(
      "failed",
      `${bwrap} could not be started, and the runtime gave no reason.`,
      NOT_STARTED,
    )
  const output = `${result.stderr}${result.stdout}`.trim()
  if (result.status === 0) return output
  if (NAMESPACE_FAILURE.test(output))
    throw SandboxUnavailableError.of("namespaces", `user namespaces are not available: ${output}`, NAMESPACES)
  const ended = result.status === null ? `was killed (${result.signal})` : `exited with ${result.status}`
  throw SandboxUnavailableError.of(
    "failed",
    `${bwrap} ${ended}: ${output || "(no output)"}`,
    "Check that the sandbox's paths exist and are readable by this user.",
  )
}
