import { dynamicTool, jsonSchema, tool } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { InvalidInputError, type MessageV2, Permission, Tool } from "../../src/index.js"
import { createTestRuntime, say, type TestRuntimeOptions, type Turn } from "../../src/testing/index.js"

const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 21 }),
})

const toolParts = (messages: MessageV2.WithParts[]) =>
  messages.flatMap((message) => message.parts).filter((part) => part.type === "tool")

async function run(tools: TestRuntimeOptions["tools"], turns: Turn[]) {
  const asked: string[] = []
  const { runtime, model } = createTestRuntime({
    tools,
    turns,
    permission: Permission.fromConfig({ "*": "ask" }),
    onPermission: (request) => {
      asked.push(request.permission)
      return "once"
    },
  })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const messages = await runtime.session.messages(session.id)
  await runtime.close()
  return { messages, model, asked }
}

describe("Tool.fromAI", () => {
  it("runs a tool() with a zod input schema, asking its permission, with the result as JSON", async () => {
    const { messages, model, asked } = await run(
      [Tool.fromAI("weather", weather)],
      [[say.toolCall("weather", { city: "Oslo" })], [say.text("21")]],
    )
    expect(asked).toEqual(["weather"])
    expect(toolParts(messages)[0]).toMatchObject({
      state: { status: "completed", output: JSON.stringify({ city: "Oslo", celsius: 21 }) },
    })
    expect(model.calls[0]!.tools?.find((entry) => entry.name === "weather")).toMatchObject({
      description: "The weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    })
  })

  it("asks the permission named in its options", async () => {
    const { asked } = await run(
      [Tool.fromAI("forecast", weather, { permission: "weather" })],
      [[say.toolCall("forecast", { city: "Oslo" })], [say.text("ok")]],
    )
    expect(asked).toEqual(["weather"])
  })

  it("takes a dynamicTool() with jsonSchema() parameters and its own validation", async () => {
    const seen: unknown[] = []
    const lookup = dynamicTool({
      description: "Looks a word up",
      inputSchema: jsonSchema<{ word: string }>(
        { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
        {
          validate: (value) =>
            typeof (value as { word?: unknown }).word === "string"
              ? { success: true, value: value as { word: string } }
              : { success: false, error: new Error("word must be a string") },
        },
      ),
      execute: async (input) => {
        seen.push(input)
        return "a greeting"
      },
    })
    const { messages, model } = await run(
      [Tool.fromAI("lookup", lookup)],
      [
        [say.toolCall("lookup", { word: 3 })],
        [say.toolCall("lookup", { word: "hello" })],
        [say.text("done")],
      ],
    )
    const [bad, good] = toolParts(messages)
    expect(bad).toMatchObject({
      state: { status: "error", error: expect.stringContaining("word must be a string") },
    })
    expect(good).toMatchObject({ state: { status: "completed", output: "a greeting" } })
    expect(seen).toEqual([{ word: "hello" }])
    expect(model.calls[0]!.tools?.find((entry) => entry.name === "lookup")).toMatchObject({
      inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
    })
  })

  it("takes jsonSchema() without validate as it is", async () => {
    const echo = tool({
      description: "Echoes",
      inputSchema: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } } }),
      execute: async ({ text }) => text,
    })
    const { messages } = await run(
      [Tool.fromAI("echo", echo)],
      [[say.toolCall("echo", { text: "hi" })], [say.text("ok")]],
    )
    expect(toolParts(messages)[0]).toMatchObject({ state: { status: "completed", output: "hi" } })
  })

  it("gives a streaming tool's last value", async () => {
    const count = tool({
      description: "Counts",
      inputSchema: z.object({}),
      async *execute() {
        yield "one"
        yield "two"
      },
    })
    const { messages } = await run(
      [Tool.fromAI("count", count)],
      [[say.toolCall("count", {})], [say.text("ok")]],
    )
    expect(toolParts(messages)[0]).toMatchObject({ state: { status: "completed", output: "two" } })
  })

  it("refuses a tool without execute, and bad ids in a tool set", () => {
    const clientSide = tool({ description: "Runs in the browser", inputSchema: z.object({}) })
    expect(() => Tool.fromAI("browser", clientSide)).toThrow(InvalidInputError)
    expect(() => Tool.fromAISet({ "bad name": weather })).toThrow(/bad name/)
    expect(() => Tool.fromAISet({ weather }, { prefix: "x".repeat(60) })).toThrow(InvalidInputError)
  })

  it("names tools of a set by prefix and key, each asking its own id or a shared permission", () => {
    const own = Tool.fromAISet({ weather, forecast: weather }, { prefix: "svc_" })
    expect(own.map((entry) => entry.id)).toEqual(["svc_weather", "svc_forecast"])
    const shared = Tool.fromAISet({ weather }, { permission: (id) => `remote:${id}` })
    expect(shared[0]!.id).toBe("weather")
  })
})

describe("createRuntime({ tools })", () => {
  it("takes an AI SDK tool set as it is", async () => {
    const { messages, asked } = await run({ weather }, [
      [say.toolCall("weather", { city: "Oslo" })],
      [say.text("21")],
    ])
    expect(asked).toEqual(["weather"])
    expect(toolParts(messages)[0]).toMatchObject({ tool: "weather", state: { status: "completed" } })
  })

  it("refuses an AI SDK tool in the array with a message that says what to do", () => {
    const error = (() => {
      try {
        createTestRuntime({ tools: [weather as unknown as Tool.Info] })
      } catch (caught) {
        return caught
      }
    })()
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).message).toContain("Tool.fromAI(id, tool)")
  })
})
