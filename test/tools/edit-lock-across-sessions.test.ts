// Issue 26, item 1: write and edit serialise per resolved path across the whole runtime, not just
// one step: two sessions, or a caller and its sub-agent, changing one file both land.
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type createRuntime, Permission, type Tool } from "../../src/index.js"
import { createTestRuntime, say, scriptedModel, type Turn } from "../../src/testing/index.js"
import { editTool } from "../../src/tools/edit.js"
import { localOperations } from "../../src/tools/local-operations.js"
import { writeTool } from "../../src/tools/write.js"
import { gate, tempProject, watchedLock } from "./helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  await project.put("project/f.txt", "top = 0\nbottom = 0\n")
})
afterEach(() => project.cleanup())

const onDisk = () => readFile(join(project.directory, "f.txt"), "utf8")

type RuntimeOptions = NonNullable<Parameters<typeof createRuntime>[0]>

const edit = (oldString: string, newString: string) =>
  say.toolCall("edit", { filePath: "f.txt", oldString, newString })

/**
 * A runtime whose one `write`/`edit` pair (one lock) every session uses. The first `edit` ask is
 * answered only once another call waits on the file: it has queued on the lock, or asked too.
 */
function runtimeWithLateFirstAnswer(answer: Turn, agents: RuntimeOptions["agents"] = {}) {
  const secondWaits = gate()
  const asked: Permission.Request[] = []
  const options = {
    directory: project.directory,
    operations: localOperations,
    lock: watchedLock(secondWaits.open),
  }
  const tools: Tool.Info[] = [writeTool(options), editTool(options)]
  const { runtime } = createTestRuntime({
    model: scriptedModel([], { fallback: answer }),
    tools,
    agents,
    permission: [{ permission: "edit", pattern: "*", action: "ask" }],
    onPermission: async (request) => {
      asked.push(request)
      if (asked.length > 1) secondWaits.open()
      else await secondWaits.opened
      return "once" as const
    },
  })
  return { runtime, asked }
}

describe("write and edit on one file across a runtime (issue 26, item 1)", () => {
  it("applies both edits when two sessions change one file at once, the first approved late", async () => {
    const { runtime } = runtimeWithLateFirstAnswer((call) => {
      const text = JSON.stringify(call.prompt)
      if (text.includes("tool-result")) return [say.text("Done.")]
      return text.includes("change the top")
        ? [edit("top = 0", "top = 1")]
        : [edit("bottom = 0", "bottom = 2")]
    })
    const [a, b] = await Promise.all([runtime.session.create(), runtime.session.create()])
    const first = runtime.session.prompt({
      sessionID: a.id,
      parts: [{ type: "text", text: "change the top" }],
    })
    const second = runtime.session.prompt({
      sessionID: b.id,
      parts: [{ type: "text", text: "change the bottom" }],
    })
    await Promise.all([first, second])

    expect(await onDisk()).toBe("top = 1\nbottom = 2\n")
    for (const session of [a, b]) {
      const tools = (await runtime.session.messages(session.id))
        .flatMap((message) => message.parts)
        .filter((part) => part.type === "tool")
      expect(tools.map((part) => part.type === "tool" && part.state.status)).toEqual(["completed"])
    }
    await runtime.close()
  })

  it("applies both edits when a caller and its sub-agent change one file in one step", async () => {
    const { runtime } = runtimeWithLateFirstAnswer(
      (call) => {
        const text = JSON.stringify(call.prompt)
        if (text.includes("tool-result")) return [say.text("Done.")]
        if (text.includes("fix the bottom")) return [edit("bottom = 0", "bottom = 2")]
        return [
          edit("top = 0", "top = 1"),
          say.toolCall("task", { description: "Bottom", prompt: "fix the bottom", subagent_type: "helper" }),
        ]
      },
      {
        helper: {
          mode: "subagent",
          description: "Fixes the bottom",
          permission: Permission.fromConfig({ "*": "allow" }),
        },
      },
    )
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "change f.txt" }] })

    expect(await onDisk()).toBe("top = 1\nbottom = 2\n")
    const [child] = await runtime.session.children(session.id)
    const childTools = (await runtime.session.messages(child!.id))
      .flatMap((message) => message.parts)
      .filter((part) => part.type === "tool")
    expect(childTools.map((part) => part.type === "tool" && part.state.status)).toEqual(["completed"])
    await runtime.close()
  })
})
