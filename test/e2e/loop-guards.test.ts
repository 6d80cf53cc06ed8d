import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, type Permission, type Question, Tool } from "../../src/index.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"

const search = Tool.define("search", {
  description: "Search the code",
  parameters: z.object({ query: z.string() }),
  async execute({ query }) {
    return { title: query, output: "no results", metadata: {} }
  },
})

const tools = (message: MessageV2.WithParts) =>
  message.parts.filter((part): part is MessageV2.ToolPart => part.type === "tool")

describe("doom-loop guard", () => {
  const same = () => [say.toolCall("search", { query: "parser" })]

  it("asks doom_loop on the third identical call in a row, and tells the model to stop when denied", async () => {
    const { runtime } = createTestRuntime({
      tools: [search],
      turns: [same(), same(), same(), [say.text("I will try something else.")]],
      agents: { build: { permission: [{ permission: "doom_loop", pattern: "*", action: "deny" }] } },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "find the parser" }],
    })
    const calls = (await runtime.session.messages(session.id)).flatMap(tools)
    expect(calls.map((part) => part.state.status)).toEqual(["completed", "completed", "error"])
    const third = calls[2]!.state as MessageV2.ToolStateError
    expect(third.error).toContain("same input three times in a row")
  })

  it("lets the call through when the user allows it", async () => {
    const asked: Permission.Request[] = []
    const { runtime } = createTestRuntime({
      tools: [search],
      turns: [same(), same(), same(), [say.text("done")]],
      onPermission: (request) => {
        asked.push(request)
        return "once"
      },
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "find the parser" }],
    })
    expect(asked.map((request) => request.permission)).toEqual(["doom_loop"])
    const calls = (await runtime.session.messages(session.id)).flatMap(tools)
    expect(calls.map((part) => part.state.status)).toEqual(["completed", "completed", "completed"])
  })
})

describe("question tool", () => {
  const questions: Question.Info[] = [
    {
      question: "Which database?",
      header: "Database",
      options: [{ label: "SQLite", description: "embedded" }],
      custom: true,
    },
  ]

  it("asks the host and gives the model each question with its answer", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.toolCall("question", { questions })], [say.text("Going with SQLite.")]],
      onQuestion: () => [["SQLite"]],
    })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "set up storage" }],
    })
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({ text: "Going with SQLite." })
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("Which database?")
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("SQLite")
  })

  it("stops the loop when the user dismisses the question", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.toolCall("question", { questions })], [say.text("never")]],
      question: true,
    })
    runtime.events.on("question.asked", (event) => void runtime.question.reject(event.properties.id))
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "set up storage" }],
    })
    expect(model.calls).toHaveLength(1)
    expect(tools(answer)[0]?.state).toMatchObject({
      status: "error",
      error: "The user dismissed this question.",
    })
  })

  it("is denied to sub-agents by default", async () => {
    const { runtime } = createTestRuntime({ question: true })
    const ids = runtime.tools.enabled({ ruleset: runtime.agents.general!.permission }).map((tool) => tool.id)
    expect(ids).not.toContain("question")
    expect(
      runtime.tools.enabled({ ruleset: runtime.agents.build!.permission }).map((tool) => tool.id),
    ).toContain("question")
  })
})

describe("titles", () => {
  it("titles a new root session from its first message with the small model, without blocking", async () => {
    const small = scriptedModel([[say.text("<think>hmm</think>\n\nParser bug hunt\nsecond line")]])
    const { runtime, model } = createTestRuntime({ turns: [[say.text("Hello!")]], small })
    const session = await runtime.session.create()
    const titled = new Promise<string>((resolve) =>
      runtime.events.on("session.updated", (event) => {
        if (!event.properties.info.title.startsWith("New session")) resolve(event.properties.info.title)
      }),
    )
    await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Why does the parser crash?" }],
    })
    expect(await titled).toBe("Parser bug hunt")
    expect(JSON.stringify(small.calls[0]?.prompt)).toContain("Why does the parser crash?")
    expect(model.calls).toHaveLength(1)
    await runtime.close()
  })

  it("leaves the default title when title generation fails, and never titles a child session", async () => {
    const small = scriptedModel([{ throws: new Error("small model down") }])
    const { runtime } = createTestRuntime({ turns: [[say.text("Hello!")], [say.text("Hi child")]], small })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    const child = await runtime.session.create({ parentID: session.id })
    await runtime.session.prompt({ sessionID: child.id, parts: [{ type: "text", text: "hi" }] })
    await runtime.close()
    expect(small.calls).toHaveLength(1)
  })
})

describe("hooks", () => {
  it("let a host change the message, the system prompt, the settings, tool calls and finished text", async () => {
    const echo = Tool.define("echo", {
      description: "Echo",
      parameters: z.object({ text: z.string() }),
      async execute({ text }) {
        return { title: "echo", output: text, metadata: {} }
      },
    })
    const { runtime, model } = createTestRuntime({
      tools: [echo],
      turns: [[say.toolCall("echo", { text: "from the model" })], [say.text("all done   ")]],
      hooks: {
        "chat.message": (_input, message) => {
          const { sessionID, id: messageID } = message.info
          message.parts.push({
            id: runtime.session.newPartID(messageID),
            sessionID,
            messageID,
            type: "text",
            text: "(expanded)",
          })
        },
        "chat.system": (_input, output) => {
          output.system.push("Always answer in English.")
        },
        "chat.params": (_input, output) => {
          output.temperature = 0.2
        },
        "tool.before": (_input, output) => {
          output.args = { text: "from the hook" }
        },
        "tool.after": (input, output) => {
          output.title = `${input.tool} (checked)`
        },
        "text.complete": (_input, output) => {
          output.text = output.text.toUpperCase()
        },
      },
    })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "go" }],
    })
    const sent = JSON.stringify(model.calls[0]?.prompt)
    expect(sent).toContain("(expanded)")
    expect(sent).toContain("Always answer in English.")
    expect(model.calls[0]?.temperature).toBe(0.2)
    const [, first] = await runtime.session.messages(session.id)
    expect(tools(first!)[0]?.state).toMatchObject({
      status: "completed",
      output: "from the hook",
      title: "echo (checked)",
    })
    expect(answer.parts.find((part) => part.type === "text")).toMatchObject({ text: "ALL DONE" })
  })
})
