// The git snapshot's attacks (issue 41, items 2 and 3) made by a scripted agent's real bash tool
// in a process of its own, the agent running as root and as nobody, each judged on the host.
import { spawn } from "node:child_process"
import { chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const NOBODY = 65534
const asRoot = process.getuid?.() === 0
const roots: string[] = []
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

type Report = { uid: number; links: string; plant: string }

/** Runs snapshot-attack-agent.ts on `root` as `as` (as the test's own user when not root). */
function runAgent(as: "root" | "nobody", root: string): Promise<Report> {
  const node = [process.execPath, "--import", "tsx", resolve("test/e2e/snapshot-attack-agent.ts"), root]
  const command =
    as === "nobody" && asRoot
      ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...node]
      : node
  return new Promise((done, fail) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: root },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 90_000,
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", fail)
    child.on("close", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? ""
      if (code === 0 && line.startsWith("{")) done(JSON.parse(line) as Report)
      else fail(new Error(`agent exited with ${code}: ${stderr.slice(-2000)}`))
    })
  })
}

describe.each(["root", "nobody"] as const)(
  "a scripted agent attacking the host through the git snapshot, as %s",
  (as) => {
    it("deletes no outside file through a link, and runs no program planted in the git dir", async () => {
      const root = await mkdtemp(join(tmpdir(), `agentloop-snapshot-attack-${as}-`))
      roots.push(root)
      if (as === "nobody" && asRoot) await chown(root, NOBODY, NOBODY)
      const report = await runAgent(as, root)
      expect(report.uid).toBe(as === "nobody" && asRoot ? NOBODY : process.getuid?.())
      expect(report.links).toBe("ok")
      expect(report.plant).toBe("ok")
      // Judged on the host.
      expect(await readFile(join(root, "links", "outside", "victim.txt"), "utf8")).toBe(
        "the host's own file\n",
      )
      expect(await readdir(join(root, "plant", "markers"))).toEqual([])
    }, 120_000)
  },
)
