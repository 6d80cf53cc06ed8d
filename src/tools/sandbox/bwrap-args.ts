import { SANDBOX_HOME } from "./env.js"
import type { Limits } from "./options.js"

/** A system folder as the host has it: a directory mounted read-only, or a symlink made again. */
export type SystemPath =
  | { path: string; kind: "directory" }
  | { path: string; kind: "symlink"; target: string }

/** What the sandbox copies of this machine; see `readHostLayout`. */
export type HostLayout = {
  /** `/usr`, `/bin`, `/lib`… as they are on the host. */
  system: SystemPath[]
  /**
   * What under /etc other users cannot read: covered (a file by /dev/null, which bwrap's nodev
   * mounts make unopenable; a folder by an empty one), so a host running as root leaks nothing either.
   */
  hidden: { path: string; kind: "file" | "directory" }[]
  /** Where /etc/resolv.conf really is, when it links out of /etc (systemd-resolved); mounted with the network. */
  resolvConf?: string | undefined
  /** The shell that sets the limits and runs the command: bash, or sh where there is no bash. */
  shell: { path: string; kind: "bash" | "sh" }
  /** Whether bwrap can forbid nested user namespaces (0.8 and later). */
  disableUserns: boolean
}

/** A host path mounted at `path` in the sandbox. */
export type Mount = { source: string; path: string; writable: boolean }

export type BwrapInput = {
  layout: HostLayout
  mounts: readonly Mount[]
  network: boolean
  limits: Limits
  /** Where the command starts; must be a mounted path. */
  cwd: string
  command: string
  /** A file descriptor bwrap writes its JSON info (the sandbox's pid on the host) to. */
  infoFd?: number
  /** Mounts over the mounted paths, after them: the runtime's data hidden (see `dataCovers`). */
  covers?: readonly string[]
}

/**
 * What of /proc writes reach the host's kernel, made read-only over the sandbox's own /proc: the
 * sysctls (`kernel.core_pattern` runs a program as root on the host), the magic SysRq key, IRQ
 * affinity, buses, file systems. bwrap covers some of them itself, only when it finds them
 * writable, and never /proc/sys, whose folder no one may write even where its files are. They
 * are bound from the host's /proc: the same files, since a sysctl shows the namespaces of the
 * process reading it (the sandbox's network, not the host's), whatever mount it is read through.
 */
export const PROC_READ_ONLY = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"]

/**
 * bwrap's arguments for one command: every namespace of its own (the network unless it is on),
 * no capabilities, the system read-only, a private /tmp and home, the host's paths as listed,
 * then the command under `ulimit`. The environment is not in them: it goes to bwrap as its own
 * environment (see `sandboxEnv`), so that no value shows in the process list.
 */
export function bwrapArgs(input: BwrapInput): string[] {
  const { layout } = input
  return [
    ...["--die-with-parent", "--new-session"],
    ...["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"],
    ...(input.network ? [] : ["--unshare-net"]),
    ...(layout.disableUserns ? ["--disable-userns"] : []),
    ...["--cap-drop", "ALL"],
    ...layout.system.flatMap((entry) =>
      entry.kind === "directory"
        ? ["--ro-bind", entry.path, entry.path]
        : ["--symlink", entry.target, entry.path],
    ),
    ...["--ro-bind", "/etc", "/etc"],
    ...layout.hidden.flatMap((entry) =>
      entry.kind === "file"
        ? ["--ro-bind", "/dev/null", entry.path]
        : ["--tmpfs", entry.path, "--remount-ro", entry.path],
    ),
    ...(input.network && layout.resolvConf ? ["--ro-bind", layout.resolvConf, layout.resolvConf] : []),
    ...["--proc", "/proc"],
    ...PROC_READ_ONLY.flatMap((file) => ["--ro-bind-try", file, file]),
    ...["--dev", "/dev", "--tmpfs", "/tmp", "--dir", SANDBOX_HOME],
    // Outer paths first, so that a path inside another is mounted over it, not covered by it.
    ...[...input.mounts]
      .sort((a, b) => depth(a.path) - depth(b.path))
      .flatMap((mount) => [mount.writable ? "--bind" : "--ro-bind", mount.source, mount.path]),
    ...(input.covers ?? []),
    ...["--chdir", input.cwd],
    ...(input.infoFd === undefined ? [] : ["--info-fd", String(input.infoFd)]),
    "--",
    layout.shell.path,
    "-c",
    limitScript(layout.shell, input.limits),
    layout.shell.path,
    input.command,
  ]
}

/**
 * Closes every descriptor above 2 (one the host process held without close-on-exec would reach
 * the command: a database, a socket), sets the limits, then runs the command (`$1`) in a fresh
 * shell, as `localExec` does. A limit the host already holds lower cannot be raised, and stays:
 * its error is not worth showing.
 */
function limitScript(shell: HostLayout["shell"], limits: Limits): string {
  // bash counts file sizes in KiB, sh (dash) in 512-byte blocks, and names the process limit -p.
  const bash = shell.kind === "bash"
  const settings: [string, number | undefined][] = [
    [bash ? "-u" : "-p", limits.processes],
    ["-v", Math.floor(limits.memoryBytes / 1024)],
    ["-f", Math.floor(limits.fileSizeBytes / (bash ? 1024 : 512))],
    ["-t", limits.cpuSeconds],
  ]
  const lines = settings
    .filter((setting): setting is [string, number] => setting[1] !== undefined)
    .map(([flag, value]) => `ulimit ${flag} ${value} 2>/dev/null`)
  // Named plain "bash" in its messages ("bash: line 1: …"), as under localExec.
  const run = bash ? `exec -a bash ${shell.path} -c "$1"` : `exec ${shell.path} -c "$1"`
  return [closeDescriptors(shell), ...lines, run].join("; ")
}

/**
 * The shell's loop over its open descriptors. bash closes any number (`{fd}>&-`); sh (dash)
 * names only 0 to 9 in a redirection, so there the higher ones stay (docs/sandbox.md). The
 * folder's own descriptor, closed by the time the loop runs, fails quietly.
 */
function closeDescriptors(shell: HostLayout["shell"]): string {
  const close =
    shell.kind === "bash" ? "{ exec {fd}>&-; } 2>/dev/null" : '{ eval "exec $fd>&-"; } 2>/dev/null'
  const wanted = shell.kind === "bash" ? '[ "$fd" -gt 2 ]' : "case $fd in [3-9]) true;; *) false;; esac"
  return `for fd in /proc/self/fd/*; do fd=\${fd##*/}; if ${wanted}; then ${close}; fi; done`
}

function depth(file: string): number {
  return file.split("/").filter(Boolean).length
}
