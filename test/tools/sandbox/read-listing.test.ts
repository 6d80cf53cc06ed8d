import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { localOperations } from "../../../src/tools/local-operations.js"
import { readTool } from "../../../src/tools/read.js"
import { confinedFiles } from "../../../src/tools/sandbox/confined-files.js"
import { permissionHarness, rules } from "../helpers.js"
import { tempDirs } from "./helpers.js"

const dirs = tempDirs()
afterEach(() => dirs.cleanup())

describe("the read tool on confined operations", () => {
  it("lists a directory holding a link that points out of the sandbox, by its name", async () => {
    const project = await dirs.make("agentloop-listing-project-")
    const outside = await dirs.make("agentloop-listing-outside-")
    await mkdir(join(outside, "elsewhere"))
    await writeFile(join(project, "a.txt"), "inside")
    await symlink(join(outside, "elsewhere"), join(project, "out"))
    const operations = { ...localOperations, ...confinedFiles({ writable: [project], readable: [] }) }
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(readTool({ directory: project, operations }), { filePath: "." })
    expect(result.output).toContain("a.txt")
    expect(result.output).toContain("out")
    expect(result.output).not.toContain("out/")
  })
})
