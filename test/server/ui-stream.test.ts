import { readUIMessageStream } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { MessageV2, type Permission, Tool } from "../../src/index.js"
import { toUIMessageStream } from "../../src/server/ui-stream.js"
import { createTestRuntime, say, type TestRuntimeOptions } from "../../src/testing/index.js"
import { eventually, nextEvent } from "./helpers.js"

const deploy = Tool.define("deploy", {
  description: "Deploys to an environment",
  parameters: z.object({ target: z.string() }),
  async execute({ target }, context) {
    await context.ask({ permission: "deploy", patterns: [target] })
    return { title: target, output: `deployed to ${target}`, metadata: { target } }
  },
})
const askDeploy: Permission.Rule[] = [{ permission: "deploy", pattern: "*", action: "ask" }]
const pick = {
  question: "Which database?",
  header: "Database",
  options: [
    { label: "postgres", description: "Server" },
    { label: "sqlite", description: "File" },
  ],
  custom: false,
}
const hi = [{ type: "text" as const, text: "hi" }]

async function start(options: TestRuntimeOptions) {
  const context = createTestRuntime(options)
  const session = await context.runtime.session.create()
  return { ...context, sessionID: session.id, baseline: context.runtime.events.listenerCount() }
}

type UIMessage = MessageV2.UIMessage
type Stream = ReturnType<typeof toUIMessageStream>

/** Reads the stream to its end, calling `onMessage` with each state of the message; the last state. */
async function readAll(stream: Stream, onMessage: (message: UIMessage) => unknown = () => undefined) {
  const errors: string[] = []
  let last: UIMessage | undefined
  const messages = readUIMessageStream<UIMessage>({
    stream,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  })
  for await (const message of messages) {
    last = message
    await onMessage(message)
  }
  return { message: last, errors }
}

function dataPart<T extends "permission" | "question">(message: UIMessage, name: T) {
  const part = message.parts.find((part) => part.type === `data-${name}`)
  return part as Extract<UIMessage["parts"][number], { type: `data-${T}` }> | undefined
}

/** Without the streaming-only fields, to compare with the stored view. */
function settled(message: UIMessage | undefined) {
  return JSON.parse(
    JSON.stringify(message, (key, value) =>
      key === "state" && typeof value === "string" && value === "done" ? undefined : value,
    ),
  )
}

describe("toUIMessageStream", () => {
  it("streams a prompt's text into one message, the same as toUIMessages shows it afterwards", async () => {
    const { runtime, sessionID, baseline } = await start({
      turns: [
        [
          say.reasoning("Thinking"),
          say.text("Hello there, world", { chunks: 3 }),
          say.usage({ input: 10, output: 5 }),
        ],
      ],
    })
    const chunks: string[] = []
    const stream = toUIMessageStream({ runtime, sessionID, parts: hi })
    const [forReader, forLog] = stream.tee()
    const log = (async () => {
      for await (const chunk of forLog) chunks.push(chunk.type)
    })()
    const { message, errors } = await readAll(forReader)
    await log
    expect(errors).toEqual([])
    expect(chunks).toEqual([
      "start",
      "message-metadata",
      "start-step",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-end",
      "message-metadata",
      "finish-step",
      "finish",
    ])
    const stored = MessageV2.toUIMessages(await runtime.session.messages(sessionID))
    expect(stored).toHaveLength(2)
    expect(settled(message)).toEqual(settled(stored[1]))
    expect(message?.parts).toContainEqual({ type: "text", text: "Hello there, world", state: "done" })
    expect(message?.metadata).toMatchObject({
      agent: "build",
      finish: "stop",
      tokens: { input: 10, output: 5 },
    })
    expect(runtime.events.listenerCount()).toBe(baseline)
  })

  it("shows a tool asking permission as data-permission, answered while streaming, then its output", async () => {
    const { runtime, sessionID } = await start({
      tools: [deploy],
      permission: askDeploy,
      turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
    })
    const seen: string[] = []
    const { message, errors } = await readAll(
      toUIMessageStream({ runtime, sessionID, parts: hi }),
      async (message) => {
        const tool = message.parts.find((part) => part.type === "tool-deploy")
        const state = tool && "state" in tool ? tool.state : undefined
        if (state && !seen.includes(state)) seen.push(state)
        const asked = dataPart(message, "permission")
        if (asked && !asked.data.reply && !seen.includes("asked")) {
          seen.push("asked")
          expect(asked.data).toMatchObject({ sessionID, permission: "deploy", patterns: ["prod"] })
          await runtime.permission.reply({ requestID: asked.data.id, reply: "once" })
        }
      },
    )
    expect(errors).toEqual([])
    expect(seen).toEqual(["input-streaming", "input-available", "asked", "output-available"])
    expect(dataPart(message!, "permission")?.data.reply).toBe("once")
    expect(message?.parts).toContainEqual({
      type: "tool-deploy",
      toolCallId: expect.any(String),
      state: "output-available",
      input: { target: "prod" },
      output: "deployed to prod",
      title: "prod",
      toolMetadata: { target: "prod" },
      rawInput: undefined,
      errorText: undefined,
      providerExecuted: undefined,
      preliminary: undefined,
    })
    expect(message?.parts.at(-1)).toEqual({ type: "text", text: "Deployed", state: "done" })
    const stored = MessageV2.toUIMessages(await runtime.session.messages(sessionID))
    const withoutRequests = {
      ...message!,
      parts: message!.parts.filter((part) => part.type !== "data-permission"),
    }
    expect(settled(withoutRequests)).toEqual(settled(stored[1]))
  })

  it("shows a sub-agent's permission request too", async () => {
    const { runtime, sessionID } = await start({
      tools: [deploy],
      permission: askDeploy,
      task: true,
      turns: [
        [say.toolCall("task", { description: "ship", prompt: "deploy it", subagent_type: "general" })],
        [say.toolCall("deploy", { target: "prod" })],
        [say.text("Shipped")],
        [say.text("All done")],
      ],
    })
    const { message } = await readAll(
      toUIMessageStream({ runtime, sessionID, parts: hi }),
      async (message) => {
        const asked = dataPart(message, "permission")
        if (asked && !asked.data.reply)
          await runtime.permission.reply({ requestID: asked.data.id, reply: "once" })
      },
    )
    const asked = dataPart(message!, "permission")
    expect(asked?.data.sessionID).not.toBe(sessionID)
    expect(asked?.data.reply).toBe("once")
    expect(message?.parts.at(-1)).toMatchObject({ type: "text", text: "All done" })
  })

  it("shows a question as data-question and its answers once replied", async () => {
    const { runtime, sessionID } = await start({
      question: true,
      turns: [[say.toolCall("question", { questions: [pick] })], [say.text("Noted")]],
    })
    const { message } = await readAll(
      toUIMessageStream({ runtime, sessionID, parts: hi }),
      async (message) => {
        const asked = dataPart(message, "question")
        if (asked && !asked.data.answers && !asked.data.rejected)
          await runtime.question
            .reply({ requestID: asked.data.id, answers: [["postgres"]] })
            .catch(() => undefined)
      },
    )
    expect(dataPart(message!, "question")?.data).toMatchObject({ questions: [pick], answers: [["postgres"]] })
    expect(message?.parts).toContainEqual(
      expect.objectContaining({ type: "tool-question", state: "output-available" }),
    )
    expect(message?.parts.at(-1)).toMatchObject({ type: "text", text: "Noted" })
  })

  it("leaves no listener behind when the reader cancels, and the run goes on", async () => {
    const { runtime, sessionID, baseline } = await start({
      tools: [deploy],
      permission: askDeploy,
      turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
    })
    const reader = toUIMessageStream({ runtime, sessionID, parts: hi }).getReader()
    for (let next = await reader.read(); !next.done; next = await reader.read())
      if (next.value.type === "data-permission") break
    expect(runtime.events.listenerCount()).toBeGreaterThan(baseline)
    await reader.cancel()
    await eventually(() => runtime.events.listenerCount() === baseline)
    expect(runtime.session.status(sessionID).type).toBe("busy")
    const [request] = await runtime.permission.list()
    await runtime.permission.reply({ requestID: request!.id, reply: "once" })
    await eventually(() => runtime.session.status(sessionID).type === "idle")
    await runtime.close()
  })

  it("ends when its signal aborts, without cancelling the run", async () => {
    const { runtime, sessionID, baseline } = await start({
      tools: [deploy],
      permission: askDeploy,
      turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
    })
    const controller = new AbortController()
    const { message } = await readAll(
      toUIMessageStream({ runtime, sessionID, parts: hi, signal: controller.signal }),
      (message) => {
        if (dataPart(message, "permission")) controller.abort()
      },
    )
    expect(dataPart(message!, "permission")).toBeDefined()
    expect(runtime.events.listenerCount()).toBe(baseline)
    expect(runtime.session.status(sessionID).type).toBe("busy")
    await runtime.close()
  })

  it("ends when the runtime closes mid-run", async () => {
    const { runtime, sessionID } = await start({
      tools: [deploy],
      permission: askDeploy,
      turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
    })
    const { message } = await readAll(toUIMessageStream({ runtime, sessionID, parts: hi }), (message) => {
      if (dataPart(message, "permission")) void runtime.close()
    })
    expect(dataPart(message!, "permission")).toBeDefined()
    expect(runtime.events.listenerCount()).toBe(0)
  })

  it("reports a refused prompt as the stream's error, and ends", async () => {
    const { runtime, sessionID, baseline } = await start({ turns: [] })
    const { errors } = await readAll(
      toUIMessageStream({ runtime, sessionID, parts: hi, prompt: { agent: "no-such-agent" } }),
    )
    expect(errors).toEqual([expect.stringContaining("no-such-agent")])
    expect(runtime.events.listenerCount()).toBe(baseline)
  })

  it("reports a failed model call as an error, with the answer's error in the metadata", async () => {
    const { runtime, sessionID } = await start({
      turns: [[say.error(new Error("boom"))]],
      retry: { maxAttempts: 0 },
    })
    const { message, errors } = await readAll(toUIMessageStream({ runtime, sessionID, parts: hi }))
    expect(errors).toHaveLength(1)
    expect(message?.metadata?.error).toBeDefined()
  })

  it("without parts, follows the run under way, and ends at once on an idle session", async () => {
    // The run waits on a permission, so it is under way when the stream starts, however slow the machine.
    const { runtime, sessionID, baseline } = await start({
      tools: [deploy],
      permission: askDeploy,
      turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Later")]],
    })
    const idle: string[] = []
    for await (const chunk of toUIMessageStream({ runtime, sessionID })) idle.push(chunk.type)
    expect(idle).toEqual(["start", "finish"])
    const asked = nextEvent(runtime, (event) => event.type === "permission.asked")
    const run = runtime.session.prompt({ sessionID, parts: hi })
    const request = await asked
    const following = readAll(toUIMessageStream({ runtime, sessionID }))
    if (request.type !== "permission.asked") throw new Error("not a permission request")
    await runtime.permission.reply({ requestID: request.properties.id, reply: "once" })
    const { message } = await following
    await run
    expect(message?.parts.at(-1)).toMatchObject({ type: "text", text: "Later" })
    expect(runtime.events.listenerCount()).toBe(baseline)
  })
})
