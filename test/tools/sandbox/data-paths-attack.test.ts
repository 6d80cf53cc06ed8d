// The runtime's own data inside the directory (the snapshot's git dir, the session database),
// attacked by a scripted agent's real tools in the sandbox, the agent running as root and as
// nobody, each judged on the host (issue 41, item 3).
import { existsSync } from "node:fs"
import { chown, readFile, stat } from "node:fs/promises"
import { basename, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { SqliteStorage } from "../../../src/storage/sqlite/index.js"
import { NOBODY, runAgentProcess } from "../../setup/agent-process.js"
import { bwrapInstalled, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

const asRoot = process.getuid?.() === 0

type Report = {
  gitDir: string
  config: string
  sessionID: string
  commands: number
  results: { tool: string; status: string; text: string }[]
}

/** Runs data-paths-agent.ts in a process of its own, as the current user or as nobody. */
function runAgent(project: string, as: "self" | "nobody"): Promise<Report> {
  return runAgentProcess("test/tools/sandbox/data-paths-agent.ts", [project], { as, home: project })
}

/** Nothing of the data changed on the host, and the tools said so. */
async function judge(project: string, report: Report) {
  const { gitDir, results } = report
  const database = join(project, "sessions.db")
  expect(await readFile(join(gitDir, "config"), "utf8")).toBe(report.config)
  expect(existsSync(join(gitDir, "hooks"))).toBe(false)
  expect(existsSync(join(project, ".agentloop-moved"))).toBe(false)
  // mv copies what it cannot rename: at most the empty folder the command saw.
  expect(existsSync(join(project, "moved-data", basename(gitDir)))).toBe(false)
  expect(existsSync(join(project, "moved.db"))).toBe(false)
  const journal = await stat(`${database}-journal`).catch(() => undefined)
  expect(journal?.size ?? 0).toBe(0)
  const bytes = await readFile(database)
  expect(bytes.subarray(0, 15).toString()).toBe("SQLite format 3")
  // The command's text is stored in the database; what it appended would end the file.
  expect(bytes.toString("latin1").endsWith("garbage\n")).toBe(false)
  const reopened = new SqliteStorage(database)
  expect((await reopened.getSession(report.sessionID))?.title).toBe("attack")
  await reopened.close()

  expect(results).toHaveLength(report.commands + 5)
  expect(results[0]!.text).not.toContain("ref: refs")
  expect(results[3]!.text).not.toContain("OPENED")
  expect(results[3]!.text).not.toContain("SQLite format")
  for (const refused of results.slice(report.commands, report.commands + 4)) {
    expect(refused.status).toBe("error")
    expect(refused.text).toMatch(/holds the runtime's own data/)
  }
  expect(results.at(-1)!.text).not.toContain(".agentloop")
}

describe.runIf(bwrapInstalled)(
  "the runtime's own data, attacked from a scripted agent's sandboxed tools",
  () => {
    it("stays as it was, the agent running as this user", async () => {
      const project = await dirs.make("agentloop-data-paths-")
      await judge(project, await runAgent(project, "self"))
    }, 120_000)

    it.runIf(asRoot)(
      "stays as it was, the agent running as nobody",
      async () => {
        const project = await dirs.make("agentloop-data-paths-nobody-")
        await chown(project, NOBODY, NOBODY)
        await judge(project, await runAgent(project, "nobody"))
      },
      120_000,
    )
  },
)
