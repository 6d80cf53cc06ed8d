import { describe, expect, it } from "vitest"
import { bwrapArgs, type HostLayout } from "../../../src/tools/sandbox/bwrap-args.js"
import { SANDBOX_HOME, sandboxEnv } from "../../../src/tools/sandbox/env.js"
import { DEFAULT_LIMITS } from "../../../src/tools/sandbox/options.js"

const layout: HostLayout = {
  system: [
    { path: "/usr", kind: "directory" },
    { path: "/bin", kind: "symlink", target: "usr/bin" },
  ],
  hidden: [
    { path: "/etc/shadow", kind: "file" },
    { path: "/etc/ssl/private", kind: "directory" },
  ],
  resolvConf: "/run/systemd/resolve/stub-resolv.conf",
  shell: { path: "/usr/bin/bash", kind: "bash" },
  disableUserns: true,
}

const base = {
  layout,
  mounts: [{ source: "/work/project", path: "/work/project", writable: true }],
  network: false,
  limits: DEFAULT_LIMITS,
  cwd: "/work/project",
  command: "npm test",
}

/** The values following each occurrence of `flag` (`count` of them). */
function valuesAfter(args: string[], flag: string, count = 1): string[][] {
  return args.flatMap((arg, index) => (arg === flag ? [args.slice(index + 1, index + 1 + count)] : []))
}

describe("bwrapArgs", () => {
  it("isolates every namespace, drops capabilities and dies with its parent", () => {
    const args = bwrapArgs(base)
    for (const flag of [
      "--die-with-parent",
      "--new-session",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--disable-userns",
    ])
      expect(args).toContain(flag)
    expect(valuesAfter(args, "--cap-drop")).toEqual([["ALL"]])
    expect(args).not.toContain("--share-net")
  })

  it("keeps the host's network only when asked, with the resolver file it links to", () => {
    expect(bwrapArgs(base)).toContain("--unshare-net")
    const open = bwrapArgs({ ...base, network: true })
    expect(open).not.toContain("--unshare-net")
    expect(valuesAfter(open, "--ro-bind", 2)).toContainEqual([layout.resolvConf, layout.resolvConf])
    expect(valuesAfter(bwrapArgs(base), "--ro-bind", 2)).not.toContainEqual([
      layout.resolvConf,
      layout.resolvConf,
    ])
  })

  it("mounts the system read-only, /etc with what others cannot read hidden, and a private /tmp and home", () => {
    const args = bwrapArgs(base)
    expect(valuesAfter(args, "--ro-bind", 2)).toEqual(
      expect.arrayContaining([
        ["/usr", "/usr"],
        ["/etc", "/etc"],
        ["/dev/null", "/etc/shadow"],
      ]),
    )
    expect(valuesAfter(args, "--symlink", 2)).toContainEqual(["usr/bin", "/bin"])
    expect(valuesAfter(args, "--tmpfs")).toEqual(expect.arrayContaining([["/tmp"], ["/etc/ssl/private"]]))
    expect(valuesAfter(args, "--proc")).toEqual([["/proc"]])
    expect(valuesAfter(args, "--dev")).toEqual([["/dev"]])
    expect(valuesAfter(args, "--dir")).toContainEqual([SANDBOX_HOME])
    // The hidden entries come after /etc is mounted, or they would be covered by it.
    expect(args.lastIndexOf("/etc/shadow")).toBeGreaterThan(args.indexOf("/etc"))
  })

  it("binds writable paths read-write and readable ones read-only, outer before inner", () => {
    const args = bwrapArgs({
      ...base,
      mounts: [
        { source: "/work/project/vendor", path: "/work/project/vendor", writable: false },
        { source: "/work/project", path: "/work/project", writable: true },
        { source: "/opt/node", path: "/opt/node", writable: false },
        { source: "/data/cache", path: "/home/u/.cache", writable: true },
      ],
    })
    expect(valuesAfter(args, "--bind", 2)).toEqual([
      ["/work/project", "/work/project"],
      ["/data/cache", "/home/u/.cache"],
    ])
    expect(valuesAfter(args, "--ro-bind", 2)).toEqual(
      expect.arrayContaining([
        ["/opt/node", "/opt/node"],
        ["/work/project/vendor", "/work/project/vendor"],
      ]),
    )
    // A read-only folder inside the writable directory stays read-only: it is mounted after.
    expect(args.indexOf("/work/project/vendor")).toBeGreaterThan(args.indexOf("/work/project"))
    // Every bind comes after the private /tmp, so that a directory under /tmp is not covered by it.
    expect(args.indexOf("--bind")).toBeGreaterThan(args.indexOf("/tmp"))
  })

  it("runs the command in cwd through the shell, after setting the limits", () => {
    const args = bwrapArgs({
      ...base,
      cwd: "/work/project/src",
      limits: { ...DEFAULT_LIMITS, cpuSeconds: 60 },
    })
    expect(valuesAfter(args, "--chdir")).toEqual([["/work/project/src"]])
    const [shell, dashC, script, name, command] = args.slice(-5)
    expect([shell, dashC, name, command]).toEqual(["/usr/bin/bash", "-c", "/usr/bin/bash", "npm test"])
    // bash counts -v and -f in KiB.
    expect(script).toContain("ulimit -u 512")
    expect(script).toContain(`ulimit -v ${4 * 1024 * 1024}`)
    expect(script).toContain(`ulimit -f ${1024 * 1024}`)
    expect(script).toContain("ulimit -t 60")
    expect(script).toMatch(/exec -a bash \/usr\/bin\/bash -c "\$1"$/)
  })

  it("speaks sh's ulimit where bash is missing", () => {
    const args = bwrapArgs({ ...base, layout: { ...layout, shell: { path: "/bin/sh", kind: "sh" } } })
    const script = args.at(-3)
    // dash names the process limit -p and counts file sizes in 512-byte blocks.
    expect(script).toContain("ulimit -p 512")
    expect(script).toContain(`ulimit -f ${2 * 1024 * 1024}`)
    expect(script).not.toContain("ulimit -t")
  })

  it("reports the sandbox's pid on the info fd when asked", () => {
    expect(valuesAfter(bwrapArgs({ ...base, infoFd: 3 }), "--info-fd")).toEqual([["3"]])
    expect(bwrapArgs(base)).not.toContain("--info-fd")
  })

  it("makes what of /proc reaches the host's kernel read-only, after mounting /proc", () => {
    const args = bwrapArgs(base)
    expect(valuesAfter(args, "--ro-bind-try", 2)).toEqual(
      ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"].map((file) => [file, file]),
    )
    expect(args.indexOf("--ro-bind-try")).toBeGreaterThan(args.indexOf("--proc"))
  })

  it("closes every inherited descriptor above 2 before the limits and the command", () => {
    const script = bwrapArgs(base).at(-3)!
    expect(script).toMatch(
      /^for fd in \/proc\/self\/fd\/\*; do .*\[ "\$fd" -gt 2 \].*exec \{fd\}>&-.*done; ulimit/,
    )
    const sh = bwrapArgs({ ...base, layout: { ...layout, shell: { path: "/bin/sh", kind: "sh" } } }).at(-3)!
    // dash names only descriptors 0 to 9 in a redirection.
    expect(sh).toMatch(/^for fd in \/proc\/self\/fd\/\*; do .*\[3-9\].*exec \$fd>&-.*done; ulimit/)
  })

  it("leaves out --disable-userns for a bwrap older than 0.8", () => {
    expect(bwrapArgs({ ...base, layout: { ...layout, disableUserns: false } })).not.toContain(
      "--disable-userns",
    )
  })
})

describe("sandboxEnv", () => {
  const host = {
    PATH: "/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin:/home/u/.local/bin:/work/project/node_modules/.bin",
    LANG: "C.UTF-8",
    TERM: "xterm",
    HOME: "/root",
    ANTHROPIC_API_KEY: "sk-ant-host-secret",
    GITHUB_TOKEN: "ghp_host_secret",
    AWS_SECRET_ACCESS_KEY: "aws-host-secret",
  }
  const visible = ["/usr", "/bin", "/work/project"]

  it("passes only the allow-list, PATH cut down to what the sandbox mounts, and a private home", () => {
    const env = sandboxEnv({ host, visible })
    expect(env).toEqual({
      PATH: "/usr/local/bin:/usr/bin:/bin:/work/project/node_modules/.bin",
      LANG: "C.UTF-8",
      TERM: "xterm",
      HOME: SANDBOX_HOME,
    })
  })

  it("never carries an API key or token from the host, into the environment or bwrap's arguments", () => {
    const env = sandboxEnv({ host, visible, set: { CI: "1" }, exec: { FORCE_COLOR: "0" } })
    const args = bwrapArgs({ ...base, command: "env" })
    const everything = [...Object.keys(env), ...Object.values(env), ...args].join("\n")
    for (const secret of [
      "ANTHROPIC_API_KEY",
      "sk-ant-host-secret",
      "GITHUB_TOKEN",
      "ghp_host_secret",
      "aws-host",
    ])
      expect(everything).not.toContain(secret)
    expect(env).toMatchObject({ CI: "1", FORCE_COLOR: "0" })
  })

  it("passes the names the host lists instead, always with a PATH, and lets set and exec variables win", () => {
    const env = sandboxEnv({
      host,
      visible,
      passEnv: ["GITHUB_TOKEN", "MISSING"],
      set: { LANG: "en_US.UTF-8", HOME: "/work/project" },
      exec: { LANG: "fr_FR.UTF-8" },
    })
    expect(env).toEqual({
      PATH: "/usr/local/bin:/usr/bin:/bin",
      GITHUB_TOKEN: "ghp_host_secret",
      LANG: "fr_FR.UTF-8",
      HOME: "/work/project",
    })
  })

  it("falls back to the system PATH when the host has none", () => {
    expect(sandboxEnv({ host: {}, visible }).PATH).toBe("/usr/local/bin:/usr/bin:/bin")
  })
})
