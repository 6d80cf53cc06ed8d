import { spawnSync } from "node:child_process"
import { chmod, chown, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { InvalidInputError } from "../../../src/error/invalid-input.js"
import { SandboxUnavailableError } from "../../../src/tools/sandbox/errors.js"
import { createSandboxOperations, sandboxOperations } from "../../../src/tools/sandbox/sandbox-operations.js"
import { bwrapInstalled, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

function unavailable(make: () => unknown): SandboxUnavailableError {
  try {
    make()
  } catch (error) {
    if (SandboxUnavailableError.isInstance(error)) return error
    throw error
  }
  throw new Error("the sandbox started")
}

describe("sandboxOperations when the sandbox cannot start", () => {
  let project: string
  beforeEach(async () => {
    project = await dirs.make("agentloop-sandbox-unavailable-")
  })

  it("names a missing bwrap and how to install it", () => {
    const error = unavailable(() => sandboxOperations({ directory: project, bwrap: "/nonexistent/bwrap" }))
    expect(error.data.reason).toBe("missing")
    expect(error.data.fix).toContain("apt-get install bubblewrap")
    expect(error.message).toContain("/nonexistent/bwrap")
    expect(error.message).toContain(error.data.fix)
  })

  it("names user namespaces that are off, and how to turn them on", async () => {
    for (const message of [
      "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.",
      "bwrap: setting up uid map: Permission denied",
    ]) {
      const fake = join(project, "fake-bwrap")
      await writeFile(fake, `#!/bin/sh\necho "${message}" >&2\nexit 1\n`)
      await chmod(fake, 0o755)
      const error = unavailable(() => sandboxOperations({ directory: project, bwrap: fake }))
      expect(error.data.reason).toBe("namespaces")
      expect(error.data.fix).toContain("kernel.unprivileged_userns_clone=1")
      expect(error.data.fix).toContain("user.max_user_namespaces")
      expect(error.data.fix).toContain("kernel.apparmor_restrict_unprivileged_userns")
      expect(error.message).toContain(message)
    }
  })

  it("looks bwrap up on the host's PATH, not on the PATH commands get", async () => {
    const bin = await dirs.make("agentloop-sandbox-bin-")
    const fake = join(bin, "bwrap")
    await writeFile(fake, `#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n`)
    await chmod(fake, 0o755)
    const host = (PATH: string) => ({ platform: "linux" as const, env: { PATH } })
    const found = unavailable(() => createSandboxOperations({ directory: project }, host(bin)))
    expect(found.data.reason).toBe("namespaces")
    const missing = unavailable(() => createSandboxOperations({ directory: project }, host(project)))
    expect(missing.data.reason).toBe("missing")
  })

  it("reports any other failure of bwrap with its own words", async () => {
    const fake = join(project, "fake-bwrap")
    await writeFile(fake, `#!/bin/sh\necho "bwrap: something unforeseen" >&2\nexit 1\n`)
    await chmod(fake, 0o755)
    const error = unavailable(() => sandboxOperations({ directory: project, bwrap: fake }))
    expect(error.data.reason).toBe("failed")
    expect(error.message).toContain("bwrap: something unforeseen")
  })

  it("refuses a platform other than Linux, before looking for bwrap", () => {
    for (const platform of ["darwin", "win32"] as const) {
      const error = unavailable(() => createSandboxOperations({ directory: project }, { platform, env: {} }))
      expect(error.data.reason).toBe("platform")
      expect(error.data.fix).toMatch(/Linux/)
    }
  })

  it("rejects options it cannot use, naming the field", () => {
    const bad = [
      { directory: "" },
      { directory: project, writable: [join(project, "missing")] },
      { directory: join(project, "missing") },
      { directory: project, limits: { processes: 0 } },
      { directory: project, passEnv: ["NOT A NAME"] },
      { directory: project, surprise: true },
    ]
    for (const options of bad) {
      const error = (() => {
        try {
          sandboxOperations(options as never)
        } catch (error) {
          return error
        }
      })()
      expect(InvalidInputError.isInstance(error), JSON.stringify(options)).toBe(true)
    }
  })
})

// CI runs as root; the sandbox must work the same for an ordinary user (or say why it cannot).
const asRoot = process.getuid?.() === 0
describe.runIf(bwrapInstalled && asRoot)("sandboxOperations as a user that is not root", () => {
  it("probes and runs a command as nobody", async () => {
    const home = await dirs.make("agentloop-sandbox-nobody-")
    await chown(home, 65534, 65534)
    const script = join(home, "run.mts")
    const entry = resolve("src/tools/sandbox/index.ts")
    await writeFile(
      script,
      `import { sandboxOperations } from ${JSON.stringify(entry)}
const directory = process.argv[2]
try {
  const sandbox = sandboxOperations({ directory })
  let output = ""
  const result = await sandbox.exec("id -u; echo made > made.txt; cat made.txt; cat /etc/shadow", {
    cwd: directory, signal: new AbortController().signal, onData: (chunk) => { output += chunk },
  })
  console.log(JSON.stringify({ started: true, result, output }))
} catch (error) {
  console.log(JSON.stringify({ started: false, name: error.name, data: error.data }))
}
`,
    )
    const tsx = resolve("node_modules/tsx/dist/cli.mjs")
    const child = spawnSync(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, tsx, script, home],
      { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home }, cwd: home, timeout: 60_000 },
    )
    expect(child.status, child.stderr).toBe(0)
    const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!)
    if (!report.started) {
      // A machine where namespaces are closed to ordinary users must say so, not run unconfined.
      expect(report).toMatchObject({ name: "SandboxUnavailableError", data: { reason: "namespaces" } })
      console.warn(`NOTE: the sandbox cannot start for nobody here: ${report.data.message}`)
      return
    }
    expect(report.result).toMatchObject({ exitCode: 1 })
    expect(report.output).toMatch(/^65534\nmade\n.*\/etc\/shadow: Permission denied\n$/)
  })
})
