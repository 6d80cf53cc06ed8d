import { readFileSync, statSync } from "node:fs"
import { SandboxUnavailableError } from "./errors.js"
import type { SandboxUser } from "./options.js"

// The group a user without a usable one of its own gets: Debian's and Fedora's "nogroup"/"nobody".
const NOGROUP = 65534

export const ROOT_FIX =
  "Run the agent as an ordinary user; or chown the directory to the ordinary user commands should run as " +
  "(they then run as its owner); or give sandboxOperations a `user` ({ uid, gid } of an ordinary user that " +
  "can write the directory and the writable paths)."

/**
 * Whom commands run as: undefined for the agent's own user, unless that is root. Then the
 * `user` given, else the directory's owner; a directory of root's fails with reason "root", for
 * commands running as the host's root could write its sysctls, fork past the process limit and
 * leave setuid-root programs behind.
 */
export function commandUser(
  options: { directory: string; user: SandboxUser | undefined },
  agentUid: number | undefined,
): SandboxUser | undefined {
  if (agentUid !== 0) return undefined
  if (options.user) return options.user
  const owner = statSync(options.directory)
  if (owner.uid === 0)
    throw SandboxUnavailableError.of(
      "root",
      `the agent runs as root and ${options.directory} belongs to root, so its commands would run as root.`,
      ROOT_FIX,
    )
  return { uid: owner.uid, gid: owner.gid !== 0 ? owner.gid : primaryGroup(owner.uid) }
}

/** The user's group in /etc/passwd, or nogroup: never root's group, which a directory's may be. */
function primaryGroup(uid: number): number {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [, , id, gid] = line.split(":")
      if (Number(id) === uid && Number(gid) > 0) return Number(gid)
    }
  } catch {
    // No passwd file: nogroup.
  }
  return NOGROUP
}

/**
 * A command for the probe that names each of `paths` the user cannot write, one a line after
 * `UNWRITABLE`; it runs in the sandbox, as the user, so that ACLs and groups count as they will.
 */
export function unwritableCheck(paths: readonly string[]): string {
  const quoted = paths.map((file) => `'${file.replaceAll("'", "'\\''")}'`).join(" ")
  return `for p in ${quoted}; do [ -w "$p" ] || echo "${UNWRITABLE}$p"; done; true`
}

export const UNWRITABLE = "agentloop-unwritable: "
