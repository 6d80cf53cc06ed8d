import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { MessageV2, Permission } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { editTool } from "../../src/tools/edit.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { readTool } from "../../src/tools/read.js"
import { tempProject } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  await project.put("project/src/app.ts", "export function main() {\n    return 1\n}\n")
})
afterEach(() => project.cleanup())

const toolParts = (messages: MessageV2.WithParts[]) =>
  messages
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")

describe("the file tools in a runtime", () => {
  it("read, then a mis-indented edit: each call asks with the path relative to the directory", async () => {
    const asked: Permission.Request[] = []
    const options = { directory: project.directory, operations: localOperations }
    const { runtime } = createTestRuntime({
      tools: [readTool(options), editTool(options)],
      // Everything asks, so every request reaches the handler.
      permission: [{ permission: "*", pattern: "*", action: "ask" }],
      onPermission: (request) => {
        asked.push(request)
        return "once"
      },
      turns: [
        [say.toolCall("read", { filePath: "src/app.ts" })],
        // Quoted at two spaces a level; the file uses four.
        [
          say.toolCall("edit", {
            filePath: "src/app.ts",
            oldString: "export function main() {\n  return 1\n}",
            newString: "export function main() {\n  return 2\n}",
          }),
        ],
        [say.text("Done.")],
      ],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "bump it" }] })

    expect(asked.map(({ permission, patterns }) => ({ permission, patterns }))).toEqual([
      { permission: "read", patterns: ["src/app.ts"] },
      { permission: "edit", patterns: ["src/app.ts"] },
    ])
    expect(asked[1]?.metadata.diff).toContain("-    return 1\n+    return 2\n")
    const parts = toolParts(await runtime.session.messages(session.id))
    expect(parts.map((part) => part.state.status)).toEqual(["completed", "completed"])
    expect(await readFile(join(project.directory, "src/app.ts"), "utf8")).toBe(
      "export function main() {\n    return 2\n}\n",
    )
  })

  it("feeds a denied read back to the model, the file unread", async () => {
    const options = { directory: project.directory, operations: localOperations }
    const { runtime } = createTestRuntime({
      tools: [readTool(options)],
      permission: [{ permission: "read", pattern: "src/*", action: "deny" }],
      turns: [[say.toolCall("read", { filePath: "./src//app.ts" })], [say.text("Cannot.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "read it" }] })
    const [part] = toolParts(await runtime.session.messages(session.id))
    expect(part?.state.status).toBe("error")
    expect(part?.state.status === "error" && part.state.error).toContain('read "src/*" -> deny')
  })
})
