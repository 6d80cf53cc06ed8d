// Escapes an attacker would try from a scripted agent's real bash tool in the sandbox, the agent
// running as root and as nobody, each judged on the host (issue 41, item 1).
import { closeSync, openSync } from "node:fs"
import { chmod, chown, lstat, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { NOBODY, runAgentProcess } from "../../setup/agent-process.js"
import { PROCESS_LIMIT } from "./attacker-agent.js"
import { bwrapInstalled, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

// The descriptor the agent's process inherits without close-on-exec, as from a parent that leaked it.
const INHERITED_FD = 30
const asRoot = process.getuid?.() === 0

type Report =
  | { started: true; uid: number; outputs: Record<string, string> }
  | { started: false; name: string; data: { reason: string; message: string } }

/** Runs attacker-agent.ts in a process of its own, as `as`, holding `secret` open at INHERITED_FD. */
async function runAgent(as: "root" | "nobody", directory: string, secret: string, user?: string) {
  const fd = openSync(secret, "r")
  try {
    const args = [directory, String(INHERITED_FD), ...(user ? [user] : [])]
    return await runAgentProcess<Report>("test/tools/sandbox/attacker-agent.ts", args, {
      as: as === "root" ? "self" : "nobody",
      home: directory,
      inherit: { fd, at: INHERITED_FD },
    })
  } finally {
    closeSync(fd)
  }
}

/** What the host sees after the attacks: nothing of it changed, no setuid-root file, no secret read. */
async function judge(report: Report, directory: string) {
  if (!report.started) throw new Error(`the sandbox did not start: ${report.data.message}`)
  const { outputs } = report
  expect(outputs.corePattern).not.toContain("OPENED")
  expect(outputs.dropCaches).not.toContain("OPENED")
  // The command made the file; on the host it is not a set-user-ID program of root's.
  const made = await lstat(join(directory, "suid-id"))
  expect(made.uid === 0 && (made.mode & 0o4000) !== 0, outputs.setuid).toBe(false)
  const started = Number(/started=(\d+)/.exec(outputs.processes!)?.[1])
  expect(started, outputs.processes).toBeLessThan(PROCESS_LIMIT)
  expect(outputs.inheritedFd).not.toContain("host secret")
  expect(outputs.inheritedFd).toMatch(/read-fd-done=[1-9]/)
}

describe.runIf(bwrapInstalled && asRoot)("an attacker's commands in the sandbox", () => {
  async function setup() {
    const directory = await dirs.make("agentloop-attack-")
    const outside = await dirs.make("agentloop-attack-outside-")
    const secret = join(outside, "secret.txt")
    await writeFile(secret, "host secret")
    return { directory, secret }
  }

  it("cannot reach the host from an agent running as root, commands running as the given user", async () => {
    const { directory, secret } = await setup()
    // Root's directory, which the user's group may write.
    await chown(directory, 0, NOBODY)
    await chmod(directory, 0o775)
    const report = await runAgent("root", directory, secret, `${NOBODY}:${NOBODY}`)
    await judge(report, directory)
    expect((await lstat(join(directory, "suid-id"))).uid).toBe(NOBODY)
  }, 120_000)

  it("cannot reach the host from an agent running as nobody", async () => {
    const { directory, secret } = await setup()
    await chown(directory, NOBODY, NOBODY)
    const report = await runAgent("nobody", directory, secret)
    if (!report.started) {
      // A machine where namespaces are closed to ordinary users must say so, not run unconfined.
      expect(report).toMatchObject({ name: "SandboxUnavailableError", data: { reason: "namespaces" } })
      console.warn(`NOTE: the sandbox cannot start for nobody here: ${report.data.message}`)
      return
    }
    await judge(report, directory)
    expect(await readFile(secret, "utf8")).toBe("host secret")
  }, 120_000)
})
