import { symlink } from "node:fs/promises"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Permission } from "../../src/index.js"
import { globTool } from "../../src/tools/glob.js"
import { grepTool } from "../../src/tools/grep.js"
import { listTool } from "../../src/tools/list.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { readTool } from "../../src/tools/read.js"
import { writeTool } from "../../src/tools/write.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  await project.put("etc/shadow", "root:secret-hash")
  await project.put("project/src/a.ts", "export const a = 1\n")
  await project.put("project/a.env", "TOKEN=secret-token")
})
afterEach(() => project.cleanup())

const denied = (error: unknown) => Permission.DeniedError.isInstance(error)
const rejected = (error: unknown) => Permission.RejectedError.isInstance(error)

const options = (caseInsensitive = false) => ({
  directory: project.directory,
  operations: localOperations,
  caseInsensitive,
  hasRipgrep: async () => false,
})

describe("hole: src/../../etc/shadow with only src/* readable", () => {
  const ruleset = () => rules({ read: { "*": "deny", "src/*": "allow" }, external_directory: "ask" })

  it("would pass the rules under its raw spelling, which is why tools never ask with it", () => {
    expect(Permission.evaluate("read", "src/../../etc/shadow", ruleset()).action).toBe("allow")
  })

  it("asks external_directory for the normalised folder, then read with the normalised path, and is denied", async () => {
    const harness = await permissionHarness(ruleset())
    const read = harness.run(readTool(options()), { filePath: "src/../../etc/shadow" })
    await expect(read).rejects.toSatisfy(denied)
    expect(harness.requests).toEqual([
      { permission: "external_directory", patterns: [`${project.root}/etc/*`] },
      { permission: "read", patterns: [`${project.root}/etc/shadow`] },
    ])
    // The human was asked about the outside folder, never asked to approve the read itself.
    expect(harness.asked.map((request) => request.permission)).toEqual(["external_directory"])
  })

  it("stops at external_directory when the human says no", async () => {
    const harness = await permissionHarness(ruleset(), () => "reject")
    const read = harness.run(readTool(options()), { filePath: "src/../../etc/shadow" })
    await expect(read).rejects.toSatisfy(rejected)
    expect(harness.requests.map((request) => request.permission)).toEqual(["external_directory"])
  })
})

describe("hole: deny /etc/* must catch every spelling of /etc", () => {
  const spellings = (etc: string) => [
    etc,
    `/${etc}/shadow`,
    `${etc}/./shadow`,
    `${etc.replace(/\/etc$/, "/tmp")}/../etc/shadow`,
  ]

  it("catches the folder itself and //, /./ and /../ spellings of a file in it", async () => {
    const etc = `${project.root}/etc`
    const harness = await permissionHarness(rules({ external_directory: { [`${etc}/*`]: "deny" } }))
    for (const filePath of spellings(etc)) {
      const read = harness.run(readTool(options()), { filePath })
      await expect(read, filePath).rejects.toThrow(`external_directory "${etc}/*" -> deny`)
    }
    expect(harness.requests.map((request) => request.patterns)).toEqual(
      spellings(etc).map(() => [`${etc}/*`]),
    )
  })

  it.skipIf(process.platform === "win32")("holds for the real /etc", async () => {
    const harness = await permissionHarness(rules({ external_directory: { "/etc/*": "deny" } }))
    for (const filePath of ["/etc", "//etc/passwd", "/./etc/passwd", "/tmp/../etc/passwd"]) {
      const read = harness.run(readTool(options()), { filePath })
      await expect(read, filePath).rejects.toSatisfy(denied)
    }
  })

  it("holds for list, glob, grep and write too", async () => {
    const etc = `${project.root}/etc`
    const harness = await permissionHarness(rules({ external_directory: { [`${etc}/*`]: "deny" } }))
    const calls = [
      () => harness.run(listTool(options()), { path: `/${etc}` }),
      () => harness.run(globTool(options()), { pattern: "*", path: `${etc}/.` }),
      () => harness.run(grepTool(options()), { pattern: "secret", path: `${etc}/` }),
      () => harness.run(writeTool(options()), { filePath: `${project.directory}/../etc/new`, content: "x" }),
    ]
    for (const call of calls) await expect(call()).rejects.toSatisfy(denied)
  })

  it("counts a symlink inside the directory that points outside as outside", async () => {
    await symlink(`${project.root}/etc`, `${project.directory}/linked`)
    const etc = `${project.root}/etc`
    const harness = await permissionHarness(rules({ external_directory: { [`${etc}/*`]: "deny" } }))
    await expect(harness.run(readTool(options()), { filePath: "linked/shadow" })).rejects.toThrow(
      `external_directory "${etc}/*" -> deny`,
    )
    // Writing a new file through the link is the same escape.
    await expect(harness.run(writeTool(options()), { filePath: "linked/new", content: "x" })).rejects.toThrow(
      `external_directory "${etc}/*" -> deny`,
    )
  })

  it("keeps grep from reading outside through a linked file", async () => {
    await symlink(`${project.root}/etc/shadow`, `${project.directory}/shadow-link`)
    const harness = await permissionHarness(rules({}))
    const result = await harness.run(grepTool(options()), { pattern: "secret-hash" })
    expect(result.output).toBe("No matches found")
  })

  it("follows a link whose target does not exist yet to where a write would land", async () => {
    await symlink(`${project.root}/etc/created-later`, `${project.directory}/dangling`)
    const harness = await permissionHarness(rules({ external_directory: "deny" }))
    await expect(harness.run(writeTool(options()), { filePath: "dangling", content: "x" })).rejects.toSatisfy(
      denied,
    )
    expect(harness.requests[0]).toEqual({
      permission: "external_directory",
      patterns: [`${project.root}/etc/*`],
    })
  })

  it("asks with both spellings when a link inside points elsewhere inside", async () => {
    await symlink(`${project.directory}/src`, `${project.directory}/alias`)
    const harness = await permissionHarness(rules({ read: { "src/*": "deny" } }))
    await expect(harness.run(readTool(options()), { filePath: "alias/a.ts" })).rejects.toSatisfy(denied)
    expect(harness.requests).toEqual([{ permission: "read", patterns: ["alias/a.ts", "src/a.ts"] }])
  })
})

describe("hole: *.env against a.ENV, a.env/ and 'a.env '", () => {
  const denyEnv = () => rules({ read: { "*.env": "deny" } })

  it("normalises a trailing slash away on every platform", async () => {
    const harness = await permissionHarness(denyEnv())
    await expect(harness.run(readTool(options()), { filePath: "a.env/" })).rejects.toSatisfy(denied)
    expect(harness.requests).toEqual([{ permission: "read", patterns: ["a.env"] }])
  })

  it("on a case-insensitive file system also asks with the folded spelling", async () => {
    const harness = await permissionHarness(denyEnv())
    for (const filePath of ["a.ENV", "a.env ", "A.Env.", "./a.ENV/"]) {
      const read = harness.run(readTool(options(true)), { filePath })
      await expect(read, filePath).rejects.toThrow('read "*.env" -> deny')
    }
    expect(harness.requests[0]).toEqual({ permission: "read", patterns: ["a.ENV", "a.env"] })
  })

  it("on a case-sensitive file system treats a.ENV as the different file it is", async () => {
    const harness = await permissionHarness(denyEnv())
    const read = harness.run(readTool(options(false)), { filePath: "a.ENV" })
    await expect(read).rejects.toThrow("File not found: a.ENV")
    expect(harness.requests).toEqual([{ permission: "read", patterns: ["a.ENV"] }])
  })
})

describe("every file tool asks", () => {
  it("read, write, edit, glob, grep and list each ask their own permission", async () => {
    const { editTool } = await import("../../src/tools/edit.js")
    const harness = await permissionHarness(rules({}))
    await harness.run(readTool(options()), { filePath: "src/a.ts" })
    await harness.run(writeTool(options()), { filePath: "src/b.ts", content: "b\n" })
    await harness.run(editTool(options()), { filePath: "src/b.ts", oldString: "b", newString: "c" })
    await harness.run(globTool(options()), { pattern: "**/*.ts" })
    await harness.run(grepTool(options()), { pattern: "a", path: "src" })
    await harness.run(listTool(options()), {})
    expect(harness.requests).toEqual([
      { permission: "read", patterns: ["src/a.ts"] },
      { permission: "edit", patterns: ["src/b.ts"] },
      { permission: "edit", patterns: ["src/b.ts"] },
      { permission: "glob", patterns: ["."] },
      { permission: "grep", patterns: ["src"] },
      { permission: "list", patterns: ["."] },
    ])
  })

  it("refuses globs that climb out of the searched directory", async () => {
    const harness = await permissionHarness(rules({}))
    await expect(harness.run(globTool(options()), { pattern: "../etc/*" })).rejects.toThrow(
      "must be relative",
    )
    await expect(harness.run(globTool(options()), { pattern: `${project.root}/etc/*` })).rejects.toThrow(
      "must be relative",
    )
    await expect(harness.run(grepTool(options()), { pattern: "x", include: "../**" })).rejects.toThrow(
      "must be relative",
    )
  })
})
