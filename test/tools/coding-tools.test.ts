import { describe, expect, it } from "vitest"
import { codingTools, localOperations } from "../../src/tools/index.js"
import { permissionHarness, rules } from "./helpers.js"
import { memoryOperations } from "./memory-operations.js"

describe("codingTools", () => {
  it("makes the nine built-in tools", () => {
    expect(codingTools().map((tool) => tool.id)).toEqual([
      "read",
      "write",
      "edit",
      "apply_patch",
      "glob",
      "grep",
      "list",
      "bash",
      "webfetch",
    ])
    expect(codingTools({ directory: "/srv", operations: localOperations })).toHaveLength(9)
    expect(codingTools({ webfetch: false }).map((tool) => tool.id)).not.toContain("webfetch")
  })

  it("binds them to the directory and operations given", async () => {
    const memory = memoryOperations({ "/srv/repo/a.txt": "hello\n" })
    const tools = codingTools({ directory: "/srv/repo", operations: memory.operations })
    const read = tools.find((tool) => tool.id === "read")!
    const harness = await permissionHarness(rules({}))
    expect((await harness.run(read, { filePath: "a.txt" })).output).toContain("00001| hello")
    expect(harness.requests).toEqual([{ permission: "read", patterns: ["a.txt"] }])
  })

  it("probes ripgrep once for all its calls", async () => {
    const memory = memoryOperations({ "/srv/repo/a.txt": "hello\n" })
    const grep = codingTools({ directory: "/srv/repo", operations: memory.operations }).find(
      (tool) => tool.id === "grep",
    )!
    const harness = await permissionHarness(rules({}))
    await harness.run(grep, { pattern: "hello" })
    await harness.run(grep, { pattern: "bye" })
    expect(memory.calls.filter((call) => call === "exec rg --version")).toHaveLength(1)
  })
})
