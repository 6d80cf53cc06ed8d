import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { type MessageV2, Tool } from "../../src/index.js"
import { createTestRuntime, say, type Turn } from "../../src/testing/index.js"

const greet = Tool.define("greet", {
  description: "Greets someone",
  parameters: z.object({ name: z.string() }),
  async execute({ name }) {
    return `Hello, ${name}`
  },
})

const weather = Tool.define("weather", {
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  async execute({ city }) {
    return { city, celsius: 21 }
  },
})

const titled = Tool.define("titled", {
  description: "Returns the full form without metadata",
  parameters: z.object({}),
  async execute() {
    return { title: "Done", output: "ok" }
  },
})

const context: Tool.Context = {
  sessionID: "ses_x",
  messageID: "msg_x",
  callID: "call_1",
  agent: "build",
  abort: new AbortController().signal,
  metadata: async () => {},
  ask: async () => {},
}

// ai 6 and ai 7 type the SDK's execution options differently; the tools read only toolCallId.
const options = { toolCallId: "c", messages: [] } as never

/** What the runtime makes of one value returned by `execute`. */
function returning(value: unknown) {
  const tool = Tool.define("value", {
    description: "Returns a value",
    parameters: z.object({}),
    execute: async () => value as Tool.ExecuteResult,
  })
  return Tool.toAITools([tool], () => context).value?.execute?.({} as never, options)
}

async function run(tools: Tool.Info[], turns: Turn[]) {
  const { runtime, model } = createTestRuntime({ tools, turns })
  const session = await runtime.session.create({})
  await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
  const messages = await runtime.session.messages(session.id)
  await runtime.close()
  const parts = messages.flatMap((message) => message.parts)
  return { tool: parts.find((part): part is MessageV2.ToolPart => part.type === "tool"), model }
}

/** The tool results the model was sent on its second call. */
function sentResults(model: Awaited<ReturnType<typeof run>>["model"]) {
  return model.calls[1]!.prompt.flatMap((message) =>
    message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
  )
}

describe("Tool.define: what execute returns", () => {
  it("stores a string as the output, with an empty title and no metadata", async () => {
    const { tool, model } = await run([greet], [[say.toolCall("greet", { name: "Ada" })], [say.text("done")]])
    expect(tool?.state).toMatchObject({ status: "completed", output: "Hello, Ada", title: "", metadata: {} })
    expect(sentResults(model)[0]?.output).toEqual({ type: "text", value: "Hello, Ada" })
  })

  it("stores a JSON value as its JSON text, and sends the model the value itself", async () => {
    const { tool, model } = await run(
      [weather],
      [[say.toolCall("weather", { city: "Oslo" })], [say.text("21")]],
    )
    expect(tool?.state).toMatchObject({
      status: "completed",
      output: JSON.stringify({ city: "Oslo", celsius: 21 }),
      title: "",
      metadata: {},
    })
    expect(sentResults(model)[0]?.output).toEqual({ type: "json", value: { city: "Oslo", celsius: 21 } })
  })

  it("stores and sends a JSON value as its text reads back, without undefined members", async () => {
    const optional = Tool.define("optional", {
      description: "Returns an object with a member left undefined",
      parameters: z.object({}),
      execute: async () => ({ city: "Oslo", note: undefined as string | undefined }),
    })
    const { tool, model } = await run([optional], [[say.toolCall("optional", {})], [say.text("ok")]])
    expect(tool?.state).toMatchObject({ status: "completed", output: '{"city":"Oslo"}' })
    expect(tool?.state.status === "completed" && tool.state.structured).toStrictEqual({ city: "Oslo" })
    expect(sentResults(model)[0]?.output).toStrictEqual({ type: "json", value: { city: "Oslo" } })
  })

  it("takes the full form with title and metadata left out", async () => {
    const { tool } = await run([titled], [[say.toolCall("titled", {})], [say.text("ok")]])
    expect(tool?.state).toMatchObject({ status: "completed", output: "ok", title: "Done", metadata: {} })
  })

  it("tells the full form from a JSON value by its keys and their types", async () => {
    await expect(returning({ output: "text", metadata: { n: 1 } })).resolves.toEqual({
      title: "",
      output: "text",
      metadata: { n: 1 },
    })
    // A key outside title/output/metadata/attachments, or an output that is not text: JSON.
    await expect(returning({ output: "text", extra: 1 })).resolves.toMatchObject({
      output: '{"output":"text","extra":1}',
    })
    await expect(returning({ output: 5 })).resolves.toMatchObject({ output: '{"output":5}' })
    await expect(returning({ title: 5, output: "text" })).resolves.toMatchObject({
      output: '{"title":5,"output":"text"}',
    })
    await expect(returning([1, "two", null])).resolves.toMatchObject({ output: '[1,"two",null]' })
    await expect(returning(null)).resolves.toMatchObject({ output: "null" })
    await expect(returning(42)).resolves.toMatchObject({ output: "42" })
  })

  it("sends a JSON value cut for its size as the text the model can read", async () => {
    const big = Tool.define("big", {
      description: "Returns a lot",
      parameters: z.object({}),
      execute: async () => ({ items: Array.from({ length: 5_000 }, (_, index) => `item ${index}`) }),
    })
    const { tool, model } = await run([big], [[say.toolCall("big", {})], [say.text("ok")]])
    const output = tool?.state.status === "completed" ? tool.state.output : ""
    expect(output).toContain("[Output truncated:")
    expect(sentResults(model)[0]?.output).toEqual({ type: "text", value: output })
  })

  it("refuses what storage cannot keep, as the call's error", async () => {
    await expect(returning(undefined)).rejects.toSatisfy((error) =>
      Tool.UnstorableResultError.isInstance(error),
    )
    await expect(returning({ size: 10n })).rejects.toThrow(/result\.size is a BigInt/)
  })

  it("infers the return type of execute", () => {
    expectTypeOf(greet.execute).returns.resolves.toEqualTypeOf<`Hello, ${string}`>()
    expectTypeOf(weather.execute).returns.resolves.toEqualTypeOf<{ city: string; celsius: number }>()
    expectTypeOf(titled.execute).returns.resolves.toEqualTypeOf<{ title: string; output: string }>()
    // Each is still a Tool.Info, whose execute may return any of the forms.
    expectTypeOf([greet, weather, titled]).toExtend<Tool.Info[]>()
    expectTypeOf<ReturnType<Tool.Info["execute"]>>().toEqualTypeOf<Promise<Tool.ExecuteResult>>()
    Tool.define("typed", {
      description: "Returns what cannot be JSON",
      parameters: z.object({}),
      // @ts-expect-error a function is neither text, JSON nor the full form
      execute: async () => () => 1,
    })
  })
})
