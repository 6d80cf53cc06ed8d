import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { editTool } from "../../src/tools/edit.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { writeTool } from "../../src/tools/write.js"
import { permissionHarness, rules, tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
})
afterEach(() => project.cleanup())

async function run(tool: "edit" | "write", input: Record<string, unknown>) {
  const harness = await permissionHarness(rules({ edit: "ask" }))
  const make = tool === "edit" ? editTool : writeTool
  const result = await harness.run(make({ directory: project.directory, operations: localOperations }), input)
  return { result, asked: harness.asked }
}

const onDisk = (path: string) => readFile(join(project.directory, path), "utf8")

describe("write", () => {
  it("creates a file and its missing directories, and says so", async () => {
    const { result, asked } = await run("write", { filePath: "deep/er/new.ts", content: "a\nb\n" })
    expect(result.output).toBe("Created deep/er/new.ts (+2 -0)")
    expect(await onDisk("deep/er/new.ts")).toBe("a\nb\n")
    expect(result.metadata).toMatchObject({ created: true, additions: 2, deletions: 0 })
    // Whoever approves sees the diff.
    expect(asked[0]?.metadata.diff).toContain("+a\n+b\n")
  })

  it("says it overwrote an existing file, with the diff in its metadata", async () => {
    await project.put("project/a.ts", "old\n")
    const { result } = await run("write", { filePath: "a.ts", content: "new\n" })
    expect(result.output).toBe("Overwrote a.ts (+1 -1)")
    expect(result.metadata.diff).toBe("--- a.ts\n+++ a.ts\n@@ -1,1 +1,1 @@\n-old\n+new\n")
    expect(await onDisk("a.ts")).toBe("new\n")
  })

  it("keeps the byte-order mark and CRLF line endings of the file it replaces", async () => {
    await project.put("project/win.txt", "\uFEFFold one\r\nold two\r\n")
    const { result } = await run("write", { filePath: "win.txt", content: "new one\nnew two\n" })
    expect(await readFile(join(project.directory, "win.txt"))).toEqual(
      Buffer.from("\uFEFFnew one\r\nnew two\r\n"),
    )
    expect(result.metadata.diff).toContain("-old one\n-old two\n+new one\n+new two\n")
  })

  it("does not double a byte-order mark the content brings", async () => {
    await project.put("project/bom.txt", "\uFEFFold\n")
    await run("write", { filePath: "bom.txt", content: "\uFEFFnew\n" })
    expect(await readFile(join(project.directory, "bom.txt"))).toEqual(Buffer.from("\uFEFFnew\n"))
  })

  it("writes the content's own line endings over a file that has none", async () => {
    await project.put("project/one.txt", "\uFEFFone line")
    await run("write", { filePath: "one.txt", content: "a\r\nb\r\n" })
    expect(await readFile(join(project.directory, "one.txt"))).toEqual(Buffer.from("\uFEFFa\r\nb\r\n"))
  })

  it("does not write when the edit permission is refused", async () => {
    const harness = await permissionHarness(rules({ edit: "ask" }), () => "reject")
    const tool = writeTool({ directory: project.directory, operations: localOperations })
    await expect(harness.run(tool, { filePath: "a.ts", content: "x" })).rejects.toThrow("rejected")
    await expect(onDisk("a.ts")).rejects.toThrow("ENOENT")
  })
})

describe("edit", () => {
  it("replaces exact text and shows the diff", async () => {
    await project.put("project/a.ts", "const a = 1\nconst b = 2\n")
    const { result, asked } = await run("edit", {
      filePath: "a.ts",
      oldString: "const b = 2",
      newString: "const b = 3",
    })
    expect(await onDisk("a.ts")).toBe("const a = 1\nconst b = 3\n")
    expect(result.output).toBe(
      "Edited a.ts (+1 -1)\n\n--- a.ts\n+++ a.ts\n@@ -1,2 +1,2 @@\n const a = 1\n-const b = 2\n+const b = 3\n",
    )
    expect(result.metadata).toMatchObject({ additions: 1, deletions: 1, matcher: "exact", replacements: 1 })
    expect(asked).toMatchObject([{ permission: "edit", patterns: ["a.ts"], always: ["*"] }])
  })

  it("replaces every occurrence with replaceAll", async () => {
    await project.put("project/a.ts", "foo()\nbar()\nfoo()\n")
    const { result } = await run("edit", {
      filePath: "a.ts",
      oldString: "foo",
      newString: "baz",
      replaceAll: true,
    })
    expect(await onDisk("a.ts")).toBe("baz()\nbar()\nbaz()\n")
    expect(result.output).toContain("Edited a.ts (+2 -2; 2 places)")
  })

  it("fixes a mis-indented oldString and indents the replacement to match", async () => {
    await project.put("project/a.ts", "class A {\n    run() {\n        return 1\n    }\n}\n")
    const { result } = await run("edit", {
      filePath: "a.ts",
      oldString: "run() {\n    return 1\n}",
      newString: "run() {\n    return 2\n}",
    })
    expect(await onDisk("a.ts")).toBe("class A {\n    run() {\n        return 2\n    }\n}\n")
    expect(result.output).toContain("Edited a.ts (+1 -1; matched line-trimmed)")
  })

  it("fails on an ambiguous match and leaves the file alone", async () => {
    await project.put("project/a.ts", "x = 1\nx = 1\n")
    await expect(run("edit", { filePath: "a.ts", oldString: "x = 1", newString: "x = 2" })).rejects.toThrow(
      "oldString matches several places",
    )
    expect(await onDisk("a.ts")).toBe("x = 1\nx = 1\n")
  })

  it("fails when oldString is nowhere", async () => {
    await project.put("project/a.ts", "x = 1\n")
    await expect(run("edit", { filePath: "a.ts", oldString: "y = 1", newString: "y = 2" })).rejects.toThrow(
      "oldString was not found",
    )
  })

  it("fails on a no-op edit", async () => {
    await project.put("project/a.ts", "x = 1\n")
    await expect(run("edit", { filePath: "a.ts", oldString: "x", newString: "x" })).rejects.toThrow(
      "oldString and newString are identical",
    )
  })

  it("creates or overwrites the whole file when oldString is empty", async () => {
    const created = await run("edit", { filePath: "new.ts", oldString: "", newString: "hello\n" })
    expect(created.result.output).toContain("Created new.ts (+1 -0)")
    const overwritten = await run("edit", { filePath: "new.ts", oldString: "", newString: "bye\n" })
    expect(overwritten.result.output).toContain("Overwrote new.ts (+1 -1)")
    expect(await onDisk("new.ts")).toBe("bye\n")
  })

  it("keeps CRLF line endings and a byte-order mark byte for byte", async () => {
    const original = "\uFEFFline one\r\nline two\r\nline three\r\n"
    await project.put("project/win.txt", original)
    const { result } = await run("edit", {
      filePath: "win.txt",
      oldString: "line two\nline three",
      newString: "line 2\nline 3",
    })
    const bytes = await readFile(join(project.directory, "win.txt"))
    expect(bytes.equals(Buffer.from("\uFEFFline one\r\nline 2\r\nline 3\r\n"))).toBe(true)
    // The diff is of the text, without carriage returns.
    expect(result.metadata.diff).toContain("-line two\n-line three\n+line 2\n+line 3\n")
  })

  it("keeps the byte-order mark and CRLF line endings when an empty oldString overwrites the file", async () => {
    await project.put("project/win.txt", "\uFEFFold one\r\nold two\r\n")
    await run("edit", { filePath: "win.txt", oldString: "", newString: "new one\nnew two\n" })
    expect(await readFile(join(project.directory, "win.txt"))).toEqual(
      Buffer.from("\uFEFFnew one\r\nnew two\r\n"),
    )
    await run("edit", { filePath: "win.txt", oldString: "", newString: "\uFEFFagain\n" })
    expect(await readFile(join(project.directory, "win.txt"))).toEqual(Buffer.from("\uFEFFagain\r\n"))
  })

  it("suggests similar names for a missing file", async () => {
    await project.put("project/index.ts", "")
    await expect(run("edit", { filePath: "indx.ts", oldString: "a", newString: "b" })).rejects.toThrow(
      "Did you mean one of these?\nindex.ts",
    )
  })

  it("refuses to edit a binary file", async () => {
    await project.put("project/blob.bin", Uint8Array.from([0, 1, 2]))
    await expect(run("edit", { filePath: "blob.bin", oldString: "a", newString: "b" })).rejects.toThrow(
      "not UTF-8 text",
    )
  })
})
