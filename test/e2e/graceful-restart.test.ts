import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, RuntimeClosedError, Tool } from "../../src/index.js"
import { SqliteStorage } from "../../src/storage/sqlite/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

let directory: string
let file: string

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-restart-"))
  file = join(directory, "agentloop.db")
})

afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

/** A refund that needs a supervisor's approval: asks `refund` with the order as pattern. */
function refundTool(paid: string[]) {
  return Tool.define("refund", {
    description: "Refunds an order",
    parameters: z.object({ order: z.string() }),
    async execute({ order }, context) {
      await context.ask({ permission: "refund", patterns: [order] })
      paid.push(order)
      return { title: order, output: `refunded ${order}`, metadata: {} }
    },
  })
}

const refundAsks = [{ permission: "refund", pattern: "*", action: "ask" as const }]
const tools = (messages: MessageV2.WithParts[]) =>
  messages
    .flatMap((message) => message.parts)
    .filter((part): part is MessageV2.ToolPart => part.type === "tool")

/** A runtime whose turn waits for the refund's approval, with the prompt it waits in. */
async function waitingForApproval(paid: string[]) {
  const { runtime } = createTestRuntime({
    storage: new SqliteStorage(file),
    tools: [refundTool(paid)],
    permission: refundAsks,
    turns: [[say.text("Refunding."), say.toolCall("refund", { order: "A-17" })]],
  })
  const session = await runtime.session.create()
  const asked = new Promise<void>((resolve) => runtime.events.on("permission.asked", () => resolve()))
  const prompt = runtime.session.prompt({
    sessionID: session.id,
    parts: [{ type: "text", text: "refund A-17" }],
  })
  prompt.catch(() => undefined)
  await asked
  return { runtime, sessionID: session.id, prompt }
}

describe("runtime.close() with a turn waiting for a human", () => {
  it("keeps the request stored, as a crash would, and the next process resumes the turn when answered", async () => {
    const paid: string[] = []
    const first = await waitingForApproval(paid)
    await first.runtime.close()
    await expect(first.prompt).rejects.toSatisfy((error) => RuntimeClosedError.isInstance(error))

    const { runtime, model } = createTestRuntime({
      storage: new SqliteStorage(file),
      tools: [refundTool(paid)],
      permission: refundAsks,
      turns: [[say.text("Refund done.")]],
    })
    const [request] = await runtime.permission.list()
    expect(request).toMatchObject({ sessionID: first.sessionID, permission: "refund", patterns: ["A-17"] })
    // The turn is still open: the call waits for its answer, not interrupted.
    expect(tools(await runtime.session.messages(first.sessionID))[0]?.state.status).toBe("running")

    await runtime.permission.reply({ requestID: request!.id, reply: "once" })
    const answer = await runtime.session.loop(first.sessionID)
    expect(paid).toEqual(["A-17"])
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Refund done.")).toBe(true)
    expect(JSON.stringify(model.calls[0]?.prompt)).toContain("refunded A-17")
    expect(tools(await runtime.session.messages(first.sessionID))[0]?.state.status).toBe("completed")
    await runtime.close()
  })

  it("rejects the request with asks: 'reject', ending the turn", async () => {
    const paid: string[] = []
    const first = await waitingForApproval(paid)
    await first.runtime.close({ asks: "reject" })
    const ended = await first.prompt
    expect(ended.info.role).toBe("assistant")

    const reopened = new SqliteStorage(file)
    expect(await reopened.listValues("permission/pending/")).toEqual([])
    const part = tools(await reopened.listMessages(first.sessionID))[0]
    expect(part?.state).toMatchObject({ status: "error" })
    await reopened.close()
    expect(paid).toEqual([])
  })

  it("keeps a question stored too, and ends turns that wait for nobody", async () => {
    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file),
      question: true,
      turns: [
        [
          say.toolCall("question", {
            questions: [
              { question: "Which plan?", header: "Plan", options: [{ label: "Pro", description: "pro" }] },
            ],
          }),
        ],
      ],
    })
    const session = await runtime.session.create()
    const asked = new Promise<void>((resolve) => runtime.events.on("question.asked", () => resolve()))
    const prompt = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "pick" }] })
    prompt.catch(() => undefined)
    await asked
    await runtime.close()
    await expect(prompt).rejects.toSatisfy((error) => RuntimeClosedError.isInstance(error))

    const next = createTestRuntime({
      storage: new SqliteStorage(file),
      turns: [[say.text("Pro it is.")]],
      question: true,
    }).runtime
    const [question] = await next.question.list()
    expect(question).toMatchObject({ sessionID: session.id })
    await next.question.reply({ requestID: question!.id, answers: [["Pro"]] })
    const answer = await next.session.loop(session.id)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Pro it is.")).toBe(true)
    await next.close()
  })

  it("resumes a host tool that asks with paths: the reply covers the resolved path", async () => {
    const read: string[] = []
    const reader = Tool.define("open_file", {
      description: "Opens a file",
      parameters: z.object({ path: z.string() }),
      async execute({ path }, context) {
        await context.ask({ permission: "read", patterns: [path], paths: true })
        read.push(path)
        return { title: path, output: `opened ${path}`, metadata: {} }
      },
    })
    const rules = [{ permission: "read", pattern: "*", action: "ask" as const }]
    const first = createTestRuntime({
      storage: new SqliteStorage(file),
      tools: [reader],
      permission: rules,
      turns: [[say.toolCall("open_file", { path: "./src/../src/a.ts" })]],
    }).runtime
    const session = await first.session.create()
    const asked = new Promise<void>((resolve) => first.events.on("permission.asked", () => resolve()))
    first.session
      .prompt({ sessionID: session.id, parts: [{ type: "text", text: "open" }] })
      .catch(() => undefined)
    await asked
    await first.close()

    const { runtime } = createTestRuntime({
      storage: new SqliteStorage(file),
      tools: [reader],
      permission: rules,
      turns: [[say.text("Opened.")]],
    })
    const [request] = await runtime.permission.list()
    expect(request?.patterns).toEqual(["src/a.ts"])
    await runtime.permission.reply({ requestID: request!.id, reply: "once" })
    const answer = await runtime.session.loop(session.id)
    expect(read).toEqual(["./src/../src/a.ts"])
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Opened.")).toBe(true)
    expect(await runtime.permission.list()).toEqual([])
    await runtime.close()
  })
})
