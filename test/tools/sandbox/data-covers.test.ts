import { execFileSync } from "node:child_process"
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { bwrapInstalled, run, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

// As root, commands run as the directory's owner: give it away so that only the covers stop them.
const asRoot = process.getuid?.() === 0
const giveAway = (folder: string) => asRoot && execFileSync("chown", ["-R", "65534:65534", folder])

describe.runIf(bwrapInstalled)("sandboxOperations' exec with protectedPaths", () => {
  it("keeps a missing folder and a missing file from being made, and hides one in a readable path", async () => {
    const project = await dirs.make("agentloop-covers-")
    const docs = await dirs.make("agentloop-covers-docs-")
    await writeFile(join(docs, "store.db"), "stored")
    await writeFile(join(project, "app.db"), "app data")
    giveAway(project)
    giveAway(docs)
    const operations = sandboxOperations({ directory: project, readable: [docs] })
    const protectedPaths = [
      { path: join(project, "state/snapshot"), kind: "directory" as const },
      { path: join(project, "app.db-journal"), kind: "file" as const },
      { path: join(docs, "store.db"), kind: "file" as const },
    ]
    const command = [
      "mkdir -p state/snapshot/x && echo made > state/snapshot/x/config",
      "echo hot > app.db-journal",
      "rmdir state; mv state moved",
      `cat ${docs}/store.db`,
      "echo ok",
    ].join("; ")
    const result = await run(operations, command, { cwd: project, protectedPaths })

    expect(result.output).toContain("ok")
    expect(result.output).not.toContain("stored")
    expect(await readdir(join(project, "state"))).toEqual([])
    expect((await stat(join(project, "app.db-journal"))).size).toBe(0)
    expect(await readFile(join(docs, "store.db"), "utf8")).toBe("stored")
    expect(await readFile(join(project, "app.db"), "utf8")).toBe("app data")
    // Ordinary work around them goes on.
    await mkdir(join(project, "src"))
    giveAway(project)
    const work = await run(operations, "echo x > src/a.txt && cat src/a.txt", {
      cwd: project,
      protectedPaths,
    })
    expect(work.output).toBe("x\n")
  }, 60_000)
})
