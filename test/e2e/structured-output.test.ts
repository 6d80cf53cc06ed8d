import { createAnthropic } from "@ai-sdk/anthropic"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  createProvider,
  createRuntime,
  InvalidInputError,
  MemoryStorage,
  MessageV2,
  Tool,
} from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { fixtureLines, pricedModel, replayFetch } from "../processor/replay-helpers.js"

const Weather = z.object({ city: z.string(), celsius: z.number() })
const format = { type: "json_schema" as const, schema: z.toJSONSchema(Weather) }
const ask = { type: "text" as const, text: "What is the weather in Oslo?" }

const lookup = Tool.define("lookup", {
  description: "Looks up the weather",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ title: city, output: `${city}: 4 degrees`, metadata: {} }),
})

describe("prompt({ format: json_schema })", () => {
  it("stores the validated object as `structured` after the model's tools ran", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [lookup],
      turns: [
        [say.toolCall("lookup", { city: "Oslo" })],
        [say.toolCall("StructuredOutput", { city: "Oslo", celsius: 4 })],
      ],
    })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    const info = MessageV2.throwIfFailed(answer).info
    expect(info.structured).toEqual({ city: "Oslo", celsius: 4 })
    expect(Weather.parse(info.structured)).toEqual({ city: "Oslo", celsius: 4 })
    expect(model.calls).toHaveLength(2)

    // The model is given the schema as a tool, told to use it, and made to call a tool.
    const call = model.calls[0]!
    const tool = call.tools?.find((entry) => entry.name === "StructuredOutput")
    expect(tool).toMatchObject({ type: "function", inputSchema: { properties: { city: {}, celsius: {} } } })
    expect(call.toolChoice).toEqual({ type: "required" })
    const system = call.prompt
      .filter((message) => message.role === "system")
      .map((message) => message.content)
    expect(system.join("\n")).toContain("call the StructuredOutput tool")

    // It survives a reload, and the user message keeps the format for a later run.
    const [user, , final] = await runtime.session.messages(session.id)
    expect(user!.info).toMatchObject({ role: "user", format })
    expect(final!.info).toMatchObject({ role: "assistant", structured: { city: "Oslo", celsius: 4 } })
  })

  it("sends schema failures back to the model and succeeds on a retry", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [
        [say.toolCall("StructuredOutput", { city: "Oslo", celsius: "cold" })],
        [say.toolCall("StructuredOutput", { city: "Oslo", celsius: 4 })],
      ],
    })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    expect(MessageV2.throwIfFailed(answer).info.structured).toEqual({ city: "Oslo", celsius: 4 })
    const [, failed] = await runtime.session.messages(session.id)
    const part = failed!.parts.find((entry) => entry.type === "tool")
    expect(part).toMatchObject({ tool: "StructuredOutput", state: { status: "error" } })
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain("celsius")
  })

  it("fails with a StructuredOutputError after `retries` failures", async () => {
    const bad = [say.toolCall("StructuredOutput", { city: 1 })]
    const { runtime, model } = createTestRuntime({ turns: [bad, bad, bad] })
    const session = await runtime.session.create({})
    const errors: string[] = []
    runtime.events.on("session.error", (event) => errors.push(event.properties.error?.name ?? ""))
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [ask],
      format: { ...format, retries: 1 },
    })
    expect(model.calls).toHaveLength(2)
    expect(answer.info).toMatchObject({
      role: "assistant",
      error: { name: "StructuredOutputError", data: { retries: 1 } },
    })
    expect(() => MessageV2.throwIfFailed(answer)).toThrow(MessageV2.StructuredOutputError)
    expect(errors).toEqual(["StructuredOutputError"])
  })

  it("fails when the model answers in plain text", async () => {
    const { runtime } = createTestRuntime({ turns: [[say.text("It is 4 degrees.")]] })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    expect(answer.info).toMatchObject({
      error: { name: "StructuredOutputError", data: { message: expect.stringContaining("without calling") } },
    })
  })

  it("on the agent's last step offers only the StructuredOutput tool, forced", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [lookup],
      agents: { build: { steps: 2 } },
      turns: [
        [say.toolCall("lookup", { city: "Oslo" })],
        [say.toolCall("StructuredOutput", { city: "Oslo", celsius: 4 })],
      ],
    })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    expect(MessageV2.throwIfFailed(answer).info.structured).toEqual({ city: "Oslo", celsius: 4 })
    const last = model.calls[1]!
    expect(last.tools?.map((tool) => tool.name)).toEqual(["StructuredOutput"])
    expect(last.toolChoice).toEqual({ type: "tool", toolName: "StructuredOutput" })
  })

  it("fails when the agent's steps run out before a valid answer", async () => {
    const { runtime, model } = createTestRuntime({
      tools: [lookup],
      agents: { build: { steps: 2 } },
      turns: [[say.toolCall("lookup", { city: "Oslo" })], [say.toolCall("StructuredOutput", { city: 1 })]],
    })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    expect(model.calls).toHaveLength(2)
    expect(answer.info).toMatchObject({
      error: { name: "StructuredOutputError", data: { message: expect.stringContaining("steps") } },
    })
  })

  it("a text format, or none, changes nothing", async () => {
    const { runtime, model } = createTestRuntime({ turns: [[say.text("Hi")]] })
    const session = await runtime.session.create({})
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [ask],
      format: { type: "text" },
    })
    expect(answer.info).not.toHaveProperty("structured")
    expect(model.calls[0]!.tools?.some((tool) => tool.name === "StructuredOutput") ?? false).toBe(false)
    const [user] = await runtime.session.messages(session.id)
    expect(user!.info).not.toHaveProperty("format")
  })

  it("refuses a schema that is not an object schema, storing nothing", async () => {
    const { runtime, model } = createTestRuntime({ turns: [] })
    const session = await runtime.session.create({})
    const unusable = [
      { type: "array", items: { type: "string" } },
      { type: "object", properties: { a: { type: "wat" } } },
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      { type: "object", properties: { a: { default: () => 1 } } },
    ]
    for (const schema of unusable) {
      const error = await runtime.session
        .prompt({ sessionID: session.id, parts: [ask], format: { type: "json_schema", schema } })
        .catch((caught: unknown) => caught)
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).data.issues[0]!.path).toBe("format.schema")
    }
    expect(await runtime.session.messages(session.id)).toEqual([])
    expect(model.calls).toHaveLength(0)
  })

  it("a run after a crash between the answer and its settling settles it without a model call", async () => {
    const storage = new MemoryStorage()
    const turns = [[say.toolCall("StructuredOutput", { city: "Oslo", celsius: 4 })]]
    const first = createTestRuntime({ storage, turns })
    const session = await first.runtime.session.create({})
    const answer = await first.runtime.session.prompt({ sessionID: session.id, parts: [ask], format })
    // What a process that died right after the tool call completed left behind.
    const { structured: _, ...unsettled } = answer.info as MessageV2.Assistant
    await storage.write([{ type: "message.put", info: unsettled }])

    const second = createTestRuntime({ storage, turns: [] })
    const resumed = await second.runtime.session.loop(session.id)
    expect(resumed.info).toMatchObject({ id: answer.info.id, structured: { city: "Oslo", celsius: 4 } })
    expect(second.model.calls).toHaveLength(0)
  })
})

describe("structured output from a recorded Anthropic stream", () => {
  it("the tool call Anthropic streamed becomes the stored `structured` object", async () => {
    // Anthropic's recorded answer to a forced JSON tool, with the tool renamed to ours.
    const lines = fixtureLines("anthropic--anthropic-json-tool.1.chunks.txt").map((line) =>
      line.replace('"name":"json"', '"name":"StructuredOutput"'),
    )
    const replay = replayFetch([lines], { done: false })
    const language = createAnthropic({ apiKey: "test", fetch: replay.fetch })("claude-haiku-4-5")
    const ref = { providerID: "anthropic", modelID: "claude-haiku-4-5" }
    const runtime = createRuntime({
      provider: createProvider({
        models: [{ ...ref, language, info: pricedModel(ref.providerID, ref.modelID) }],
        default: ref,
      }),
    })
    const Report = z.object({
      elements: z.array(z.object({ location: z.string(), temperature: z.number(), condition: z.string() })),
    })
    const session = await runtime.session.create({ title: "Replay" })
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Weather?" }],
      format: { type: "json_schema", schema: z.toJSONSchema(Report) },
    })

    const structured = Report.parse(MessageV2.throwIfFailed(answer).info.structured)
    expect(structured.elements[0]).toMatchObject({ location: "San Francisco", temperature: 58 })
    expect(replay.requests).toHaveLength(1)
    const body = replay.requests[0]!.body as { tools: { name: string }[]; tool_choice: unknown }
    expect(body.tools.map((tool) => tool.name)).toContain("StructuredOutput")
    expect(body.tool_choice).toEqual({ type: "any" })
    await runtime.close()
  })
})
