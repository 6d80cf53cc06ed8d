import { mkdir, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { editTool } from "../../src/tools/edit.js"
import { globTool } from "../../src/tools/glob.js"
import { grepTool } from "../../src/tools/grep.js"
import { listTool } from "../../src/tools/list.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { readTool } from "../../src/tools/read.js"
import { writeTool } from "../../src/tools/write.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"
import { memoryOperations } from "./memory-operations.js"

describe("the tools on an in-memory Operations", () => {
  // A directory that does not exist on this machine: only the port can make sense of it.
  const directory = "/nowhere/agentloop-memory"

  it("read, write, edit, glob, grep and list work through the port alone", async () => {
    const memory = memoryOperations({ [`${directory}/src/a.ts`]: "export const a = 1\n" })
    const options = { directory, operations: memory.operations, caseInsensitive: false }
    const harness = await permissionHarness(rules({}))

    expect((await harness.run(readTool(options), { filePath: "src/a.ts" })).output).toContain(
      "00001| export const a = 1",
    )
    await harness.run(writeTool(options), { filePath: "src/b.ts", content: "export const b = 2\n" })
    await harness.run(editTool(options), { filePath: "src/b.ts", oldString: "2", newString: "3" })
    expect(memory.text(`${directory}/src/b.ts`)).toBe("export const b = 3\n")
    expect((await harness.run(globTool(options), { pattern: "**/*.ts" })).output).toBe("src/b.ts\nsrc/a.ts")
    const grep = grepTool({ ...options, hasRipgrep: async () => false })
    expect((await harness.run(grep, { pattern: "export" })).output).toContain(
      "src/a.ts:\n  Line 1: export const a = 1",
    )
    expect((await harness.run(listTool(options), {})).output).toBe("./\n  src/\n    a.ts\n    b.ts")

    expect(memory.calls).toContain(`writeFile ${directory}/src/b.ts`)
    expect(memory.calls).toContain(`glob **/*.ts`)
    expect(harness.requests.map((request) => request.permission)).toEqual([
      "read",
      "edit",
      "edit",
      "glob",
      "grep",
      "list",
    ])
  })

  it("probes ripgrep through the port's exec", async () => {
    const memory = memoryOperations({ [`${directory}/a.txt`]: "x\n" })
    const harness = await permissionHarness(rules({}))
    await harness.run(grepTool({ directory, operations: memory.operations }), { pattern: "x" })
    expect(memory.calls).toContain("exec rg --version")
  })
})

describe("localOperations", () => {
  let project: Awaited<ReturnType<typeof tempProject>>
  beforeEach(async () => {
    project = await tempProject()
  })
  afterEach(() => project.cleanup())

  it("writes files, creating directories, and reads them back", async () => {
    const file = join(project.directory, "a/b/c.txt")
    await localOperations.writeFile(file, "hello")
    expect(new TextDecoder().decode(await localOperations.readFile(file))).toBe("hello")
    expect(await localOperations.stat(file)).toMatchObject({ type: "file", size: 5 })
    expect(await localOperations.stat(join(project.directory, "missing"))).toBeUndefined()
  })

  it("resolves links as far as the path exists, dangling links included", async () => {
    await mkdir(join(project.root, "elsewhere"))
    await symlink(join(project.root, "elsewhere"), join(project.directory, "link"))
    await symlink(join(project.root, "elsewhere/later.txt"), join(project.directory, "dangling"))
    expect(await localOperations.realpath(join(project.directory, "link/new/file.txt"))).toBe(
      join(project.root, "elsewhere/new/file.txt"),
    )
    expect(await localOperations.realpath(join(project.directory, "dangling"))).toBe(
      join(project.root, "elsewhere/later.txt"),
    )
  })

  it("lists entries with their kinds", async () => {
    await project.put("project/dir/x.txt", "")
    await project.put("project/file.txt", "")
    await symlink(join(project.directory, "file.txt"), join(project.directory, "link"))
    const entries = await localOperations.list(project.directory)
    expect(entries.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "dir", type: "directory" },
      { name: "file.txt", type: "file" },
      { name: "link", type: "symlink" },
    ])
  })

  it("globs inside cwd only, dotfiles included, respecting ignore and limit", async () => {
    await project.put("outside.txt", "")
    await project.put("project/.hidden.txt", "")
    await project.put("project/a.txt", "")
    await project.put("project/skip/b.txt", "")
    const cwd = project.directory
    expect((await localOperations.glob("**/*.txt", { cwd, ignore: ["skip/**"] })).sort()).toEqual([
      ".hidden.txt",
      "a.txt",
    ])
    expect(await localOperations.glob("../*.txt", { cwd })).toEqual([])
    expect(await localOperations.glob("**/*.txt", { cwd, limit: 1 })).toHaveLength(1)
  })
})
