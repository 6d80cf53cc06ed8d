import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Tool } from "../../../src/index.js"
import { runTool } from "../../../src/tool/ai-tools.js"
import { editTool } from "../../../src/tools/edit.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { applyPatchTool } from "../../../src/tools/patch/index.js"
import { gate, tempProject, watchedLock } from "../helpers.js"

let project: Awaited<ReturnType<typeof tempProject>>
beforeEach(async () => {
  project = await tempProject()
})
afterEach(() => project.cleanup())

/** A context whose first ask opens `firstAsked` and is answered only once `answerFirst` opens; the rest at once. */
function lateFirstAnswer(answerFirst: Promise<void>) {
  const asked: string[] = []
  const firstAsked = gate()
  const context: Tool.Context = {
    sessionID: "session",
    messageID: "message",
    callID: "call",
    agent: "build",
    abort: new AbortController().signal,
    metadata: async () => {},
    ask: async (request) => {
      asked.push(`${request.permission} ${request.patterns.join(",")}`)
      if (asked.length > 1) return
      firstAsked.open()
      await answerFirst
    },
  }
  return { context, asked, firstAsked: firstAsked.opened }
}

describe("apply_patch and edit on one file", () => {
  it("an edit of a file the patch holds waits for the patch, then applies to its result", async () => {
    await project.put("project/a.txt", "top = 0\nbottom = 0\n")
    await project.put("project/b.txt", "b\n")
    const editQueued = gate()
    const options = {
      directory: project.directory,
      operations: localOperations,
      lock: watchedLock(editQueued.open),
    }
    const patchAnswered = gate()
    const { context, asked, firstAsked } = lateFirstAnswer(patchAnswered.opened)
    const patching = runTool(
      applyPatchTool(options),
      {
        patchText:
          "*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** Update File: a.txt\n-top = 0\n+top = 1\n*** End Patch",
      },
      context,
    )
    await firstAsked
    const editing = runTool(
      editTool(options),
      { filePath: "a.txt", oldString: "bottom = 0", newString: "bottom = 2" },
      context,
    )
    // The edit queues behind the patch's lock while the patch's ask is pending: it asks nothing yet.
    await editQueued.opened
    expect(asked).toEqual(["edit b.txt,a.txt"])
    patchAnswered.open()
    await Promise.all([patching, editing])
    expect(await readFile(join(project.directory, "a.txt"), "utf8")).toBe("top = 1\nbottom = 2\n")
    expect(asked).toEqual(["edit b.txt,a.txt", "edit a.txt"])
  })
})
