import { execFileSync } from "node:child_process"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type MessageV2, Permission, type Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { runTool } from "../../src/tool/ai-tools.js"
import { grepTool } from "../../src/tools/grep.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { type Answer, permissionHarness, rules, tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  await project.put("project/src/app.ts", "const token = process.env.TOKEN\n", 3_000)
  await project.put("project/a.env", "TOKEN=secret-a\n", 2_000)
  await project.put("project/config/b.env", "TOKEN=secret-b\n", 1_000)
})
afterEach(() => project.cleanup())

const ripgrepInstalled = (() => {
  try {
    execFileSync("rg", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    console.warn("SKIPPED: grep's read rules with the real ripgrep (rg is not installed)")
    return false
  }
})()

const searches = [
  { search: "the JavaScript search", hasRipgrep: async () => false, runs: true },
  { search: "ripgrep", hasRipgrep: undefined, runs: ripgrepInstalled },
]

describe.each(searches)("grep under the read rules, with $search", ({ hasRipgrep, runs }) => {
  const grep = () =>
    grepTool({
      directory: project.directory,
      operations: localOperations,
      caseInsensitive: false,
      ...(hasRipgrep ? { hasRipgrep } : {}),
    })
  const harness = (config: Permission.Config, answer?: (request: Permission.Request) => Answer) =>
    permissionHarness(rules(config), answer)

  it.runIf(runs)("leaves out files whose read is denied and says how many", async () => {
    const { run, asked, requests } = await harness({ read: { "*.env": "deny" } })
    const result = await run(grep(), { pattern: "TOKEN" })
    expect(result.output).toBe(
      "Found 1 match\n\nsrc/app.ts:\n  Line 1: const token = process.env.TOKEN\n\n" +
        "(2 matching files were left out by the read rules.)",
    )
    expect(result.metadata).toMatchObject({ matches: 1, leftOut: 2 })
    expect(requests.map((request) => request.permission)).toEqual(["grep"])
    expect(asked).toEqual([])
  })

  it.runIf(runs)("says so when every matching file is left out", async () => {
    const { run } = await harness({ read: { "*.env": "deny" } })
    const result = await run(grep(), { pattern: "secret", path: "a.env" })
    expect(result.output).toBe("No matches shown\n\n(1 matching file was left out by the read rules.)")
  })

  it.runIf(runs)("asks once for every file the rules leave to ask, and shows them after once", async () => {
    const { run, asked } = await harness({ read: { "*.env": "ask" } })
    const result = await run(grep(), { pattern: "TOKEN" })
    expect(asked).toHaveLength(1)
    expect(asked[0]?.permission).toBe("read")
    expect([...(asked[0]?.patterns ?? [])].sort()).toEqual(["a.env", "config/b.env"])
    expect(result.output).toContain("a.env:\n  Line 1: TOKEN=secret-a")
    expect(result.output).toContain("config/b.env:\n  Line 1: TOKEN=secret-b")
    expect(result.output).not.toContain("left out")
  })

  it.runIf(runs)("fails the call as a rejected read when the human says no", async () => {
    const { run, asked } = await harness({ read: { "*.env": "ask" } }, () => "reject")
    await expect(run(grep(), { pattern: "TOKEN" })).rejects.toSatisfy((error) =>
      Permission.RejectedError.isInstance(error),
    )
    expect(asked).toHaveLength(1)
  })

  it.runIf(runs)("asks nothing more once an earlier 'always' covers the files", async () => {
    const { run, asked } = await harness({ read: { "*.env": "ask" } }, () => "always")
    await run(grep(), { pattern: "TOKEN" })
    const again = await run(grep(), { pattern: "secret" })
    expect(asked).toHaveLength(1)
    expect(again.output).toContain("TOKEN=secret-b")
  })

  it.runIf(runs)("shows files whose read is allowed as before", async () => {
    const { run, asked } = await harness({})
    const result = await run(grep(), { pattern: "TOKEN" })
    expect(result.output).toContain("Found 3 matches")
    expect(result.output).toContain("a.env:\n  Line 1: TOKEN=secret-a")
    expect(asked).toEqual([])
  })
})

describe("grep under the read rules, edge cases", () => {
  const grep = () =>
    grepTool({
      directory: project.directory,
      operations: localOperations,
      caseInsensitive: false,
      hasRipgrep: async () => false,
    })

  it("leaves out the asked files when a headless runtime denies what would ask", async () => {
    const { context } = await permissionHarness(rules({ read: { "*.env": "ask" } }))
    const headless: Tool.Context = {
      ...context,
      ask: async (request) => {
        if (request.permission === "read")
          throw Permission.DeniedError.nonInteractive("read", request.patterns)
      },
    }
    const result = await runTool(grep(), { pattern: "TOKEN" }, headless)
    expect(result.output).not.toContain("secret")
    expect(result.output).toContain("(2 matching files were left out by the read rules.)")
  })

  it("without context.evaluate asks each matching file's read on its own", async () => {
    const { context, requests } = await permissionHarness(rules({ read: { "*.env": "deny" } }))
    const { evaluate: _, ...withoutEvaluate } = context
    const result = await runTool(grep(), { pattern: "TOKEN" }, withoutEvaluate)
    expect(result.output).not.toContain("secret")
    expect(result.output).toContain("(2 matching files were left out by the read rules.)")
    expect(requests.filter((request) => request.permission === "read")).toHaveLength(3)
  })
})

describe("grep under the built-in agent's read rules in a runtime", () => {
  const toolParts = (messages: MessageV2.WithParts[]) =>
    messages
      .flatMap((message) => message.parts)
      .filter((part): part is MessageV2.ToolPart => part.type === "tool")

  async function grepInSession(answer: Answer) {
    const asked: Permission.Request[] = []
    const options = { directory: project.directory, operations: localOperations, caseInsensitive: false }
    const { runtime } = createTestRuntime({
      tools: [grepTool({ ...options, hasRipgrep: async () => false })],
      onPermission: (request) => {
        asked.push(request)
        return answer
      },
      turns: [[say.toolCall("grep", { pattern: "TOKEN" })], [say.text("Done.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "find TOKEN" }] })
    const [part] = toolParts(await runtime.session.messages(session.id))
    return { asked, part }
  }

  it("asks read for the .env files in one request and shows them after once", async () => {
    const { asked, part } = await grepInSession("once")
    expect(asked.map(({ permission, patterns }) => ({ permission, patterns: [...patterns].sort() }))).toEqual(
      [{ permission: "read", patterns: ["a.env", "config/b.env"] }],
    )
    expect(part?.state.status === "completed" && part.state.output).toContain("TOKEN=secret-a")
  })

  it("shows no .env line after reject: the call fails as any rejected call does", async () => {
    const { asked, part } = await grepInSession("reject")
    expect(asked).toHaveLength(1)
    expect(part?.state.status).toBe("error")
    expect(JSON.stringify(part?.state)).not.toContain("secret")
  })
})
