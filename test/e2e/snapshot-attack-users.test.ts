// The git snapshot's attacks (issue 41, items 2 and 3) made by a scripted agent's real bash tool
// in a process of its own, the agent running as root and as nobody, each judged on the host.
import { chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { NOBODY, runAgentProcess } from "../setup/agent-process.js"

const asRoot = process.getuid?.() === 0
const roots: string[] = []
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true })
})

type Report = { uid: number; links: string; plant: string }

/** Runs snapshot-attack-agent.ts on `root` as `as` (as the test's own user when not root). */
function runAgent(as: "root" | "nobody", root: string): Promise<Report> {
  const user = as === "nobody" ? "nobody" : "self"
  return runAgentProcess("test/e2e/snapshot-attack-agent.ts", [root], { as: user, home: root })
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
