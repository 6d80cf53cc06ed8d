// A truncated command's full output in the sandbox is saved where the model can read it back
// (issue 41, item 17).
import { readFile } from "node:fs/promises"
import { afterEach, describe, expect, it } from "vitest"
import { codingTools } from "../../../src/tools/index.js"
import { sandboxOperations } from "../../../src/tools/sandbox/index.js"
import { permissionHarness, rules } from "../helpers.js"
import { bwrapInstalled, run, tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

describe.runIf(bwrapInstalled)("bash's truncated output in the sandbox", () => {
  it("is saved inside the directory, readable by the read tool and by commands, and hidden from git", async () => {
    const directory = await dirs.make("agentloop-bash-output-")
    const operations = sandboxOperations({ directory })
    await run(operations, "git init -q && git config user.email a@example.com && git config user.name t", {
      cwd: directory,
    })
    const tools = codingTools({ directory, operations })
    const harness = await permissionHarness(rules({}))
    const bash = tools.find((tool) => tool.id === "bash")!
    const result = await harness.run(bash, { command: "seq 1 100000", description: "Counts" })

    expect(result.output).toMatch(/full output in /)
    const path = result.metadata.outputPath as string
    expect(path.startsWith(`${directory}/`)).toBe(true)
    expect(await readFile(path, "utf8")).toMatch(/^1\n2\n[\s\S]*\n100000\n$/)

    const read = await harness.run(tools.find((tool) => tool.id === "read")!, {
      filePath: path,
      offset: 1,
      limit: 2,
    })
    expect(read.output).toContain("1")
    const back = await run(operations, `head -n 2 '${path}'; git status --porcelain --untracked-files=all`, {
      cwd: directory,
    })
    expect(back.output).toBe("1\n2\n")
  })
})
