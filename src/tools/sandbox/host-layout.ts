import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs"
import * as path from "node:path"
import type { HostLayout, SystemPath } from "./bwrap-args.js"

// What commands need of the system, when the host has it. /etc is mounted apart (see `hidden`).
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
const SHELLS = ["/usr/bin/bash", "/bin/bash"]

/** How this machine's system folders look, read once when a sandbox is made. */
export function readHostLayout(bwrapVersion: string): HostLayout {
  const bash = SHELLS.find((shell) => existsSync(shell))
  return {
    system: SYSTEM.flatMap(systemPath),
    hidden: unreadableByOthers("/etc"),
    resolvConf: resolverOutsideEtc(),
    shell: bash ? { path: bash, kind: "bash" } : { path: "/bin/sh", kind: "sh" },
    disableUserns: atLeast(bwrapVersion, [0, 8]),
  }
}

function systemPath(file: string): SystemPath[] {
  try {
    const stats = lstatSync(file)
    if (stats.isSymbolicLink()) return [{ path: file, kind: "symlink", target: readlinkSync(file) }]
    return stats.isDirectory() ? [{ path: file, kind: "directory" }] : []
  } catch {
    return []
  }
}

/**
 * Files other users cannot read and folders they cannot enter, under `root`. Commands cannot
 * open them either: a host running as root would otherwise show them /etc/shadow or the SSH
 * host keys, since the sandbox's user is the host's user.
 */
function unreadableByOthers(root: string): HostLayout["hidden"] {
  const hidden: HostLayout["hidden"] = []
  const folders = [root]
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    let names: string[]
    try {
      names = readdirSync(folder)
    } catch {
      // Not listable by this user, nor by the sandbox, which runs as this user.
      continue
    }
    for (const name of names) {
      const file = path.join(folder, name)
      const stats = lstatSync(file, { throwIfNoEntry: false })
      if (!stats || stats.isSymbolicLink()) continue
      if (stats.isDirectory()) {
        if ((stats.mode & 0o005) === 0o005) folders.push(file)
        else hidden.push({ path: file, kind: "directory" })
      } else if ((stats.mode & 0o004) === 0) hidden.push({ path: file, kind: "file" })
    }
  }
  return hidden
}

function resolverOutsideEtc(): string | undefined {
  try {
    const real = realpathSync("/etc/resolv.conf")
    return real.startsWith("/etc/") ? undefined : real
  } catch {
    return undefined
  }
}

function atLeast(version: string, wanted: [number, number]): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major > wanted[0] || (major === wanted[0] && minor >= wanted[1])
}
