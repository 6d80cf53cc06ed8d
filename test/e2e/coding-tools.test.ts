import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { MessageV2, Permission, Tool } from "../../src/index.js"
import { GitSnapshot } from "../../src/snapshot/git/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { codingTools } from "../../src/tools/index.js"
import { ownedForSandbox, skipWithoutSandbox } from "../tools/sandbox-available.js"

const cleanup: string[] = []
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true })
})

// The same scripted scenario on this machine and in the sandbox.
const ports: { on: string; makeTools: (directory: string) => Tool.Info[]; skip: boolean }[] = [
  { on: "localOperations", makeTools: (directory) => codingTools({ directory }), skip: false },
  {
    on: "sandboxOperations",
    makeTools: (directory) => codingTools({ directory: ownedForSandbox(directory), sandbox: true }),
    skip: skipWithoutSandbox("the coding e2e on the sandbox"),
  },
]

describe.each(ports)("the coding tools in a session, on $on", ({ makeTools, skip }) => {
  it.skipIf(skip)(
    "reads, edits with a mis-indented oldString, runs a command; each prompt carries its patterns",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "agentloop-coding-"))
      const dataDir = await mkdtemp(join(tmpdir(), "agentloop-coding-snapshots-"))
      cleanup.push(directory, dataDir)
      await mkdir(join(directory, "src"))
      await writeFile(join(directory, "src/app.ts"), "export function main() {\n    return 1\n}\n")
      const asked: Permission.Request[] = []
      const { runtime } = createTestRuntime({
        directory,
        tools: makeTools(directory),
        snapshot: new GitSnapshot({ directory, dataDir }),
        // Everything asks, so that every request reaches the handler.
        permission: [{ permission: "*", pattern: "*", action: "ask" }],
        onPermission: (request) => {
          asked.push(request)
          return "once"
        },
        turns: [
          [say.toolCall("read", { filePath: "src/app.ts" })],
          [
            say.toolCall("edit", {
              filePath: "src/app.ts",
              // Two spaces a level; the file has four.
              oldString: "export function main() {\n  return 1\n}",
              newString: "export function main() {\n  return 2\n}",
            }),
          ],
          [
            say.toolCall("bash", {
              command: "cat src/app.ts | grep return && echo checked",
              description: "Check the edit",
            }),
          ],
          [say.text("main now returns 2.")],
        ],
      })
      const session = await runtime.session.create({ title: "coding" })
      const answer = await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: "bump it" }],
      })

      expect(asked.map(({ permission, patterns }) => ({ permission, patterns }))).toEqual([
        { permission: "read", patterns: ["src/app.ts"] },
        { permission: "edit", patterns: ["src/app.ts"] },
        { permission: "bash", patterns: ["cat src/app.ts", "grep return", "echo checked"] },
      ])
      expect(asked[2]?.always).toEqual(["cat *", "grep *", "echo *"])
      expect(await readFile(join(directory, "src/app.ts"), "utf8")).toBe(
        "export function main() {\n    return 2\n}\n",
      )

      const messages = await runtime.session.messages(session.id)
      const parts = messages.flatMap((message) => message.parts)
      const tools = parts.filter((part): part is MessageV2.ToolPart => part.type === "tool")
      expect(tools.map((part) => [part.tool, part.state.status])).toEqual([
        ["read", "completed"],
        ["edit", "completed"],
        ["bash", "completed"],
      ])
      const bash = tools[2]!.state
      expect(bash.status === "completed" && bash.output).toContain("    return 2\nchecked")
      expect(
        parts.filter((part) => part.type === "patch").map((part) => (part as MessageV2.PatchPart).files),
      ).toEqual([["src/app.ts"]])
      expect(answer.parts.find((part) => part.type === "text")).toMatchObject({ text: "main now returns 2." })
    },
  )
})
