import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))

describe("npm run demo", () => {
  it("stores sessions in SQLite, forks one, and reads both back from a reopened file", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "examples/sessions.ts"],
      {
        cwd: root,
      },
    )
    expect(stdout).toContain('Forked "Demo" before the answer into "Demo (fork #1)"')
    expect(stdout).toContain("- Demo (fork #1): 1 message(s)")
    expect(stdout).toContain("- Demo: 2 message(s)")
    expect(stdout).toContain("assistant: Just sessions.db.")
    expect(stdout).toMatch(/Typed error: NotFoundError for ses_/)
    expect(stdout.match(/event message\.part\.delta/g)).toHaveLength(2)
  }, 30_000)
})
