import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { type MessageV2, Permission, type Tool } from "../../../src/index.js"
import { createTestRuntime, say } from "../../../src/testing/index.js"
import { runTool } from "../../../src/tool/ai-tools.js"
import { bashTool } from "../../../src/tools/bash/index.js"
import { createProgress } from "../../../src/tools/bash/progress.js"
import { localOperations } from "../../../src/tools/local-operations.js"
import { tempProject } from "../helpers.js"

/** A context recording each progress update's output; `abort` aborts the call. */
function recordingContext() {
  const controller = new AbortController()
  const outputs: string[] = []
  const context: Tool.Context = {
    sessionID: "session",
    messageID: "message",
    callID: "call-1",
    agent: "build",
    abort: controller.signal,
    metadata: async (update) => {
      outputs.push(String(update.metadata?.output))
    },
    ask: async () => {},
  }
  return { context, outputs, abort: () => controller.abort() }
}

describe("createProgress", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("shows output that came within the interval once the output pauses", async () => {
    vi.useFakeTimers()
    const { context, outputs } = recordingContext()
    const progress = createProgress(context, "Prints", 200)
    await progress.start()
    progress.update(() => "first")
    await vi.advanceTimersByTimeAsync(50)
    progress.update(() => "first second")
    expect(outputs).toEqual(["", "first"])
    // No further output: the pending update is shown when the interval is over.
    await vi.advanceTimersByTimeAsync(200)
    expect(outputs).toEqual(["", "first", "first second"])
    await progress.settled()
    expect(vi.getTimerCount()).toBe(0)
  })

  it("shows the output so far at once when the call is aborted, and nothing after it settled", async () => {
    vi.useFakeTimers()
    const { context, outputs, abort } = recordingContext()
    const progress = createProgress(context, "Prints", 200)
    await progress.start()
    progress.update(() => "first")
    progress.update(() => "first second")
    abort()
    // Synchronously: the processor closes the interrupted call with what its part shows.
    expect(outputs).toEqual(["", "first", "first second"])
    await progress.settled()
    progress.update(() => "late")
    await vi.advanceTimersByTimeAsync(1_000)
    expect(outputs).toEqual(["", "first", "first second"])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe("bash progress", () => {
  let project: Awaited<ReturnType<typeof tempProject>>
  beforeEach(async () => {
    project = await tempProject()
  })
  afterEach(() => project.cleanup())

  const bash = () => bashTool({ directory: project.directory, operations: localOperations })

  it("shows output printed just after the previous update while the command stays silent", async () => {
    const { context, outputs, abort } = recordingContext()
    const command = "printf first; sleep 0.05; printf second; sleep 30"
    const running = runTool(bash(), { command, description: "Prints" }, context)
    // Well under the command's 30 s of silence, which is when the output would show without the fix.
    const deadline = Date.now() + 3_000
    while (!outputs.includes("firstsecond") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20))
    const shown = [...outputs]
    abort()
    await running
    expect(shown).toContain("firstsecond")
  })

  it("keeps the output printed before a cancel on the interrupted call's part", async () => {
    const marker = join(project.directory, "printed")
    const command = `printf first; sleep 0.05; printf second; sleep 0.02; touch ${marker}; sleep 30`
    const { runtime } = createTestRuntime({
      tools: [bash()],
      permission: Permission.fromConfig({ bash: "allow" }),
      turns: [[say.toolCall("bash", { command, description: "Prints" })], [say.text("unused")]],
    })
    const session = await runtime.session.create()
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const deadline = Date.now() + 3_000
    while (!existsSync(marker) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5))
    await runtime.session.cancel(session.id)
    await prompt
    const parts = (await runtime.session.messages(session.id)).flatMap((message) => message.parts)
    const call = parts.find((part): part is MessageV2.ToolPart => part.type === "tool")
    expect(call?.state.status).toBe("error")
    expect(call?.state.status === "error" && call.state.metadata?.output).toBe("firstsecond")
    await runtime.close()
  })
})
