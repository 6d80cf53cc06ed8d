import { readFile, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { MessageV2, Permission, Tool } from "../../src/index.js"
import { createTestRuntime, type ScriptedModel, say, scriptedModel } from "../../src/testing/index.js"
import { runTool } from "../../src/tool/ai-tools.js"
import { codingTools } from "../../src/tools/coding-tools.js"
import { editTool } from "../../src/tools/edit.js"
import { localOperations } from "../../src/tools/local-operations.js"
import type { Operations } from "../../src/tools/operations.js"
import { writeTool } from "../../src/tools/write.js"
import { gate, permissionHarness, rules, tempProject, watchedLock } from "./helpers.js"
import { memoryOperations } from "./memory-operations.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
  await project.put("project/f.txt", "top = 0\nbottom = 0\n")
})
afterEach(() => project.cleanup())

const onDisk = () => readFile(join(project.directory, "f.txt"), "utf8")

/**
 * A runtime with `write` and `edit` sharing one lock, where `edit` asks. The first ask is answered
 * only once another call waits on the file: it has asked too, or it has queued on the lock.
 */
function lateFirstAnswer(model: ScriptedModel, operations: Operations = localOperations) {
  const secondWaits = gate()
  const firstAsked = gate()
  const asked: Permission.Request[] = []
  const options = {
    directory: project.directory,
    operations,
    lock: watchedLock(secondWaits.open),
  }
  const { runtime } = createTestRuntime({
    model,
    tools: [writeTool(options), editTool(options)],
    permission: [{ permission: "edit", pattern: "*", action: "ask" }],
    onPermission: async (request) => {
      asked.push(request)
      if (asked.length > 1) secondWaits.open()
      else {
        firstAsked.open()
        await secondWaits.opened
      }
      return "once" as const
    },
  })
  return { runtime, asked, firstAsked: firstAsked.opened }
}

async function promptAndCollect(runtime: ReturnType<typeof lateFirstAnswer>["runtime"]) {
  const session = await runtime.session.create()
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "change f.txt" }] })
  return (await runtime.session.messages(session.id))
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")
}

describe("write and edit on one file in one step", () => {
  it("applies both of two edits, the first approved late", async () => {
    const { runtime, asked } = lateFirstAnswer(
      scriptedModel([
        [
          say.toolCall("edit", { filePath: "f.txt", oldString: "top = 0", newString: "top = 1" }),
          say.toolCall("edit", { filePath: "f.txt", oldString: "bottom = 0", newString: "bottom = 2" }),
        ],
        [say.text("Done.")],
      ]),
    )
    const parts = await promptAndCollect(runtime)

    expect(await onDisk()).toBe("top = 1\nbottom = 2\n")
    expect(parts.map((part) => part.state.status)).toEqual(["completed", "completed"])
    // The later call read the file as the earlier one left it, and showed that in its diff.
    expect(asked[1]?.metadata.diff).toMatch(/^ (top = 1|bottom = 2)$/m)
  })

  it("applies an edit, made through a symlink, to what a write approved late wrote", async () => {
    await symlink(join(project.directory, "f.txt"), join(project.directory, "alias.txt"))
    const writeAsked = gate()
    // The edit reaches the file only once the write has asked: the write is surely first.
    const operations: Operations = {
      ...localOperations,
      realpath: async (path) => {
        if (path.endsWith("alias.txt")) await writeAsked.opened
        return localOperations.realpath(path)
      },
    }
    const { runtime, firstAsked } = lateFirstAnswer(
      scriptedModel([
        [
          say.toolCall("write", { filePath: "f.txt", content: "top = 1\nbottom = 0\n" }),
          say.toolCall("edit", { filePath: "alias.txt", oldString: "bottom = 0", newString: "bottom = 2" }),
        ],
        [say.text("Done.")],
      ]),
      operations,
    )
    void firstAsked.then(writeAsked.open)
    const parts = await promptAndCollect(runtime)

    expect(await onDisk()).toBe("top = 1\nbottom = 2\n")
    expect(parts.map((part) => [part.tool, part.state.status])).toEqual([
      ["write", "completed"],
      ["edit", "completed"],
    ])
  })
})

/** A tool context whose ask runs `meanwhile` (someone else changing the file) before it approves. */
async function approveAfter(meanwhile: () => Promise<unknown>) {
  const harness = await permissionHarness(rules({}))
  const context: Tool.Context = {
    ...harness.context,
    ask: async (request) => {
      await harness.context.ask(request)
      await meanwhile()
    },
  }
  const edit = editTool({ directory: project.directory, operations: localOperations })
  return (input: Record<string, unknown>) => runTool(edit, input, context)
}

describe("edit after its ask is answered", () => {
  it("applies its replacement to the text the file has by then", async () => {
    const run = await approveAfter(() => project.put("project/f.txt", "top = 0\nmiddle = 5\nbottom = 0\n"))
    const result = await run({ filePath: "f.txt", oldString: "bottom = 0", newString: "bottom = 2" })

    expect(await onDisk()).toBe("top = 0\nmiddle = 5\nbottom = 2\n")
    expect(result.metadata.diff).toContain(" middle = 5\n-bottom = 0\n+bottom = 2\n")
  })

  it("fails with EditFailedError, writing nothing, when the text is no longer there", async () => {
    const run = await approveAfter(() => project.put("project/f.txt", "top = 0\n"))
    await expect(
      run({ filePath: "f.txt", oldString: "bottom = 0", newString: "bottom = 2" }),
    ).rejects.toThrow("oldString was not found")
    expect(await onDisk()).toBe("top = 0\n")
  })
})

describe("codingTools", () => {
  it("gives write and edit one lock: an edit waits while a write to its file is asked about", async () => {
    const memory = memoryOperations({ "/srv/repo/f.txt": "top = 0\nbottom = 0\n" })
    const tools = codingTools({ directory: "/srv/repo", operations: memory.operations })
    const tool = (id: string) => tools.find((info) => info.id === id)!
    const approveWrite = gate()
    const writeAsked = gate()
    const harness = await permissionHarness(rules({ edit: "ask" }), () => "once")
    const ask = harness.context.ask
    let asks = 0
    const context: Tool.Context = {
      ...harness.context,
      ask: async (request) => {
        if (++asks === 1) {
          writeAsked.open()
          await approveWrite.opened
        }
        await ask(request)
      },
    }

    const write = runTool(tool("write"), { filePath: "f.txt", content: "top = 1\nbottom = 0\n" }, context)
    await writeAsked.opened
    const edit = runTool(
      tool("edit"),
      { filePath: "f.txt", oldString: "bottom = 0", newString: "bottom = 2" },
      context,
    )
    // The operations here settle within one turn of the event loop: had edit not waited, it would have asked.
    await new Promise((resolve) => setImmediate(resolve))
    expect(asks).toBe(1)
    approveWrite.open()
    await Promise.all([write, edit])
    expect(memory.text("/srv/repo/f.txt")).toBe("top = 1\nbottom = 2\n")
  })
})
