import { describe, expect, it } from "vitest"
import { runTool } from "../../src/tool/ai-tools.js"
import { codingTools } from "../../src/tools/index.js"
import { permissionHarness, rules } from "./helpers.js"
import { memoryOperations } from "./memory-operations.js"

describe("what the coding tools say of their file changes", () => {
  const directory = "/nowhere/agentloop-file-changes"

  it("read, glob, grep, list and webfetch change nothing, write, edit and apply_patch declare each file, bash may change any", () => {
    const tools = codingTools({ directory, operations: memoryOperations().operations })
    expect(Object.fromEntries(tools.map((tool) => [tool.id, tool.fileChanges ?? "any"]))).toEqual({
      read: "none",
      write: "declared",
      edit: "declared",
      apply_patch: "declared",
      glob: "none",
      grep: "none",
      list: "none",
      bash: "any",
      webfetch: "none",
    })
  })

  it("write and edit declare the file before they write it, through the port", async () => {
    const memory = memoryOperations({ [`${directory}/src/a.ts`]: "export const a = 1\n" })
    const tools = codingTools({ directory, operations: memory.operations })
    const { context } = await permissionHarness(rules({}))
    const run = (id: string, input: unknown) =>
      runTool(tools.find((tool) => tool.id === id)!, input, {
        ...context,
        willChange: (file) => memory.calls.push(`willChange ${file}`),
      })
    await run("write", { filePath: "src/b.ts", content: "export const b = 2\n" })
    await run("edit", { filePath: "src/a.ts", oldString: "1", newString: "3" })
    await run("read", { filePath: "src/a.ts" })
    expect(memory.calls.filter((call) => /^(willChange|writeFile)/.test(call))).toEqual([
      `willChange ${directory}/src/b.ts`,
      `writeFile ${directory}/src/b.ts`,
      `willChange ${directory}/src/a.ts`,
      `writeFile ${directory}/src/a.ts`,
    ])
  })
})
