import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { createRuntime, InvalidInputError, type MessageV2, Tool } from "../../src/index.js"
import { createTestRuntime, say, type TestRuntimeOptions } from "../../src/testing/index.js"

class DatabaseDown extends Error {
  override name = "DatabaseDown"
}

const lookup = Tool.define("lookup", {
  description: "Looks a customer up",
  parameters: z.object({ id: z.string() }),
  async execute({ id }) {
    throw new DatabaseDown(`No connection to the customer database while reading ${id}`)
  },
})

type Reported = { error: unknown; context: Parameters<NonNullable<TestRuntimeOptions["onToolError"]>>[1] }

async function run(options: TestRuntimeOptions) {
  const { runtime, model } = createTestRuntime({
    tools: [lookup],
    turns: [[say.toolCall("lookup", { id: "c42" }, { id: "call_1" })], [say.text("It failed.")]],
    ...options,
  })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const messages = await runtime.session.messages(session.id)
  const failed = messages.some((message) => message.info.role === "assistant" && message.info.error)
  await runtime.close()
  const tool = messages
    .flatMap((message) => message.parts)
    .find((part): part is MessageV2.ToolPart => part.type === "tool")
  const sent = model.calls[1]?.prompt.flatMap((message) =>
    message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
  )
  return { failed, tool, sent, session }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("onToolError", () => {
  it("hands the host the error as thrown, stack included, with the call it ended", async () => {
    const reported: Reported[] = []
    const { tool, session } = await run({
      onToolError: (error, context) => {
        reported.push({ error, context })
      },
    })
    expect(reported).toHaveLength(1)
    const [{ error, context }] = reported as [Reported]
    expect(error).toBeInstanceOf(DatabaseDown)
    expect((error as Error).stack).toContain("tool-errors.test.ts")
    expect(context).toEqual({
      sessionID: session.id,
      messageID: tool?.messageID,
      callID: "call_1",
      tool: "lookup",
      input: { id: "c42" },
    })
  })

  it("gives the model and the stored part the message, without the stack", async () => {
    const { tool, sent, failed } = await run({ onToolError: () => {} })
    const message = "No connection to the customer database while reading c42"
    expect(tool?.state).toMatchObject({ status: "error", error: message })
    expect(sent?.[0]?.output).toEqual({ type: "error-text", value: message })
    expect(failed).toBe(false)
  })

  it("cuts a long message, saying how much was cut", async () => {
    const noisy = Tool.define("lookup", {
      description: "Fails loudly",
      parameters: z.object({ id: z.string() }),
      async execute() {
        throw new Error(`Query failed: ${"x".repeat(20_000)}`)
      },
    })
    const { tool } = await run({ tools: [noisy] })
    const error = tool?.state.status === "error" ? tool.state.error : ""
    expect(error.startsWith("Query failed: xxx")).toBe(true)
    expect(error.length).toBeLessThan(5_000)
    expect(error).toMatch(/\[Error message truncated: \d+ more characters\]$/)
  })

  it("names an error without a message by its name", async () => {
    const silent = Tool.define("lookup", {
      description: "Fails silently",
      parameters: z.object({ id: z.string() }),
      async execute() {
        throw new DatabaseDown()
      },
    })
    const { tool } = await run({ tools: [silent] })
    expect(tool?.state).toMatchObject({ status: "error", error: "DatabaseDown" })
  })

  it("does not let a hook that throws or rejects break the turn", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {})
    const throwing = await run({
      onToolError: () => {
        throw new Error("the logger is down")
      },
    })
    expect(throwing.failed).toBe(false)
    expect(throwing.tool?.state.status).toBe("error")
    const rejecting = await run({ onToolError: async () => Promise.reject(new Error("the logger is down")) })
    expect(rejecting.failed).toBe(false)
    await vi.waitFor(() => expect(logged).toHaveBeenCalledTimes(2), { timeout: 1_000 })
    expect(logged.mock.calls[0]?.[0]).toMatch(/onToolError/)
  })

  it("is refused when it is not a function", () => {
    const refused = () => createRuntime({ onToolError: "log" as never })
    expect(refused).toThrow(InvalidInputError)
    expect(refused).toThrow("onToolError: expected a function")
  })
})
