import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { MessageV2 } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { codingTools } from "../../../src/tools/index.js"
import { confinedFiles } from "../../../src/tools/sandbox/confined-files.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { bwrapInstalled, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

describe("glob through a planted link in the sandbox", () => {
  it("finds nothing past a link that leads out of the roots", async () => {
    const project = await dirs.make("agentloop-glob-link-project-")
    const outside = await dirs.make("agentloop-glob-link-outside-")
    await writeFile(join(outside, "hidden-name.txt"), "outside")
    await mkdir(join(project, "src"))
    await writeFile(join(project, "src/a.ts"), "a")
    await symlink(outside, join(project, "out"))
    await symlink(outside, join(project, "src/deep"))
    const files = confinedFiles({ writable: [project], readable: [] })
    // tinyglobby starts its walk at a pattern's fixed folder, link or not.
    expect(await files.glob("out/*", { cwd: project })).toEqual([])
    expect(await files.glob("src/deep/**", { cwd: project })).toEqual([])
    expect(await files.glob("src/**", { cwd: project })).toEqual(["src/a.ts"])
  })

  it.runIf(bwrapInstalled)("is answered by the glob tool without naming the outside file", async () => {
    const project = await dirs.make("agentloop-glob-link-agent-")
    const outside = await dirs.make("agentloop-glob-link-other-")
    await writeFile(join(outside, "hidden-name.txt"), "outside")
    await writeFile(join(project, "a.ts"), "a")
    await symlink(outside, join(project, "out"))
    const { runtime } = createTestRuntime({
      directory: project,
      tools: codingTools({ directory: project, operations: sandboxOperations({ directory: project }) }),
      permission: [{ permission: "*", pattern: "*", action: "allow" }],
      turns: [
        [say.toolCall("glob", { pattern: "out/*" })],
        [say.toolCall("glob", { pattern: "out/*.txt" })],
        [say.toolCall("glob", { pattern: "*.ts" })],
        [say.text("done")],
      ],
    })
    const session = await runtime.session.create({ title: "glob" })
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const results = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")
      .map((part) =>
        part.state.status === "completed"
          ? part.state.output
          : part.state.status === "error"
            ? part.state.error
            : "",
      )
    expect(results).toHaveLength(3)
    for (const text of results) {
      expect(text).not.toContain("hidden-name")
      expect(text).not.toContain(outside)
    }
    expect(results[2]).toBe("a.ts")
  })
})
