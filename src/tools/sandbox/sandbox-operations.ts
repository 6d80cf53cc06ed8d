import { realpathSync } from "node:fs"
import type { Operations } from "../operations.js"
import { bwrapArgs, type Mount } from "./bwrap-args.js"
import { confinedFiles } from "./confined-files.js"
import { sandboxEnv } from "./env.js"
import { type SandboxSetup, sandboxExec } from "./exec.js"
import { readHostLayout } from "./host-layout.js"
import { resolveOptions, type SandboxOptions } from "./options.js"
import { ownedFiles } from "./owned-files.js"
import { bwrapVersion, locateBwrap, requireLinux, trySandbox } from "./probe.js"
import { commandUser, unwritableCheck } from "./run-as.js"

/**
 * The `Operations` of `sandboxOperations`, and what they say of their sandbox: its engine and
 * version, the project directory, and whether commands reach the network.
 */
export type SandboxOperations = Operations & {
  readonly sandbox: { engine: "bubblewrap"; version: string; directory: string; network: boolean }
}

/** What a sandbox reads of the process that makes it: `uid` 0 is root (see `SandboxOptions.user`). */
export type SandboxHost = {
  platform: NodeJS.Platform
  env: Readonly<Record<string, string | undefined>>
  uid?: number | undefined
}

/**
 * Operations that confine the coding tools: commands run in a bubblewrap sandbox (the
 * directory and `writable` paths writable, the system and `readable` paths read-only, nothing
 * else of the machine there; no network unless `network`; an environment built from an
 * allow-list; limits; every process gone when the call ends), and file operations are held to
 * the directory and the listed paths (SandboxPathError). Linux only. Checks that the sandbox starts, once, and
 * throws SandboxUnavailableError saying what is missing and how to fix it; it never falls back
 * to running unconfined. Throws InvalidInputError for options it cannot use. See docs/sandbox.md.
 */
export function sandboxOperations(options: SandboxOptions): SandboxOperations {
  return createSandboxOperations(options, {
    platform: process.platform,
    env: process.env,
    uid: process.getuid?.(),
  })
}

/** `sandboxOperations` on a given host: tests pass another platform. */
export function createSandboxOperations(options: SandboxOptions, host: SandboxHost): SandboxOperations {
  const resolved = resolveOptions(options)
  requireLinux(host.platform)
  const bwrap = locateBwrap(resolved.bwrap, host.env.PATH)
  const version = bwrapVersion(bwrap)
  const user = commandUser(resolved, host.uid)
  const layout = readHostLayout(version)
  const writable = unique([resolved.directory, ...resolved.writable].map((file) => realpathSync(file)))
  const readable = unique(resolved.readable.map((file) => realpathSync(file))).filter(
    (file) => !writable.includes(file),
  )
  const mounts = mountsFor([resolved.directory, ...resolved.writable], resolved.readable)
  const visible = [...layout.system.map((entry) => entry.path), ...mounts.map((mount) => mount.path)]
  const setup: SandboxSetup = {
    bwrap,
    layout,
    mounts,
    network: resolved.network,
    limits: resolved.limits,
    writable,
    user,
    env: (exec) =>
      sandboxEnv({ host: host.env, visible, passEnv: resolved.passEnv, set: resolved.env, exec }),
  }
  const probe = user ? unwritableCheck(writable) : "true"
  trySandbox(bwrap, bwrapArgs({ ...setup, cwd: writable[0]!, command: probe }), setup.env(undefined), user)
  const files = confinedFiles({ writable, readable })
  return {
    ...(user ? ownedFiles(files, user) : files),
    exec: (command, execOptions) => sandboxExec(setup, command, execOptions),
    sandbox: { engine: "bubblewrap", version, directory: resolved.directory, network: resolved.network },
  }
}

/**
 * Each path at its real location, and also where the host named it when a symlink on the way
 * makes that differ, so that commands find it by either name. A path both writable and
 * readable is writable.
 */
function mountsFor(writable: readonly string[], readable: readonly string[]): Mount[] {
  const mounts = new Map<string, Mount>()
  const add = (file: string, isWritable: boolean) => {
    const source = realpathSync(file)
    for (const at of unique([source, file]))
      if (!mounts.get(at)?.writable) mounts.set(at, { source, path: at, writable: isWritable })
  }
  for (const file of readable) add(file, false)
  for (const file of writable) add(file, true)
  return [...mounts.values()]
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
