import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { MessageV2, RuntimeClosedError, Tool } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

let directory: string
let file: string

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-close-"))
  file = join(directory, "agentloop.db")
})

afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

/** A tool that runs until its call is aborted, and says when it started. */
function blockingTool() {
  let started: () => void = () => {}
  const running = new Promise<void>((resolve) => {
    started = resolve
  })
  const tool = Tool.define("wait", {
    description: "Waits until cancelled",
    parameters: z.object({}),
    async execute(_args, context) {
      started()
      await new Promise((resolve) => context.abort.addEventListener("abort", resolve, { once: true }))
      return { title: "waited", output: "done", metadata: {} }
    },
  })
  return { tool, running }
}

describe("runtime.close()", () => {
  it("ends a running turn like a cancel: the aborted message and the interrupted tool are stored", async () => {
    const { tool, running } = blockingTool()
    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file),
      tools: [tool],
      turns: [[say.text("Waiting."), say.toolCall("wait", {})]],
    })
    const session = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "wait" }] })
    await running

    await runtime.close()
    const result = await answer
    expect(result.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } })

    const reopened = new SqliteStorage(file)
    const [, stored] = await reopened.listMessages(session.id)
    expect(stored?.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } })
    expect(stored?.info.role === "assistant" && stored.info.time.completed).toEqual(expect.any(Number))
    const toolPart = stored?.parts.find((part) => part.type === "tool")
    expect(toolPart?.state).toMatchObject({ status: "error", metadata: { interrupted: true } })
    const text = stored?.parts.find((part) => part.type === "text")
    expect(text).toMatchObject({ text: "Waiting.", time: { end: expect.any(Number) } })
    await reopened.close()
  })

  it("refuses new work once closing has started", async () => {
    const { tool, running } = blockingTool()
    const { runtime } = createTestRuntime({ tools: [tool], turns: [[say.toolCall("wait", {})]] })
    const session = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "wait" }] })
    await running

    const closing = runtime.close()
    await expect(
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "more" }] }),
    ).rejects.toSatisfy((error) => RuntimeClosedError.isInstance(error))
    await expect(runtime.session.create()).rejects.toSatisfy((error) => RuntimeClosedError.isInstance(error))
    const result = await answer
    await closing
    expect(() => MessageV2.throwIfFailed(result)).toThrow(expect.objectContaining({ name: "AbortedError" }))
  })
})
