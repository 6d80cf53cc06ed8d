import { anthropic } from "@ai-sdk/anthropic"
import {
  convertToModelMessages,
  readUIMessageStream,
  simulateReadableStream,
  streamText,
  type ToolSet,
  type UIMessage,
} from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { describe, expect, it } from "vitest"
import { type Event, MessageV2, Permission, SessionProcessor, Tool } from "../../src/index.js"
import { createTestRuntime, type StreamChunk, scriptedModel } from "../../src/testing/index.js"
import { modelInfo, turnSetup, user } from "../processor/helpers.js"

const results = [
  {
    type: "web_search_result",
    url: "https://example.com/oslo",
    title: "Oslo weather",
    pageAge: null,
    encryptedContent: "enc-1",
  },
]

/** A model turn in which the provider searched the web itself, then answered. */
function searched(options: { fails?: boolean } = {}): StreamChunk[] {
  return [
    { type: "stream-start", warnings: [] },
    {
      type: "tool-call",
      toolCallId: "srvtoolu_1",
      toolName: "web_search",
      input: JSON.stringify({ query: "weather in Oslo" }),
      providerExecuted: true,
    },
    options.fails
      ? {
          type: "tool-result",
          toolCallId: "srvtoolu_1",
          toolName: "web_search",
          result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
          isError: true,
        }
      : { type: "tool-result", toolCallId: "srvtoolu_1", toolName: "web_search", result: results },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "It is 21 degrees." },
    { type: "text-end", id: "t1" },
    finish("stop"),
  ]
}

const answered: StreamChunk[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t2" },
  { type: "text-delta", id: "t2", delta: "Still 21." },
  { type: "text-end", id: "t2" },
  finish("stop"),
]

function finish(unified: "stop" | "tool-calls"): StreamChunk {
  return {
    type: "finish",
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
  }
}

const chunked = (steps: StreamChunk[]) => steps.map((chunk) => ({ type: "chunk" as const, chunk }))

/** Two prompts in one session: the first turn searches, the second is sent the first. */
async function twoTurns(first: StreamChunk[], tools: Record<string, Tool.AITool> | Tool.Info[]) {
  const asked: string[] = []
  const reported: unknown[] = []
  const events: Event[] = []
  const model = scriptedModel([chunked(first), chunked(answered)])
  const { runtime } = createTestRuntime({
    model,
    tools,
    permission: Permission.fromConfig({ "*": "ask" }),
    onPermission: (request) => {
      asked.push(request.permission)
      return "once"
    },
    onToolError: (error) => {
      reported.push(error)
    },
  })
  runtime.events.onAny((event) => events.push(event))
  const session = await runtime.session.create({})
  for (const text of ["How warm is Oslo?", "And now?"])
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
  const messages = await runtime.session.messages(session.id)
  await runtime.close()
  const tool = messages
    .flatMap((message) => message.parts)
    .find((part): part is MessageV2.ToolPart => part.type === "tool")
  return { model, messages, tool, asked, reported, events }
}

/** The second request's assistant messages when the AI SDK runs the same turns (useChat's way). */
async function sdkSecondRequest(first: StreamChunk[], given: Record<string, Tool.AITool>) {
  // @ai-sdk/anthropic brings its own copy of the SDK's tool type.
  const tools = given as ToolSet
  const streams = [first, answered]
  const model = new MockLanguageModelV3({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: streams.shift()! }) }),
  })
  const user = (id: string, text: string): UIMessage => ({
    id,
    role: "user",
    parts: [{ type: "text", text }],
  })
  const history: UIMessage[] = [user("u1", "How warm is Oslo?")]
  const turn = streamText({ model, tools, messages: await convertToModelMessages(history) })
  let reply: UIMessage | undefined
  for await (const message of readUIMessageStream({ stream: turn.toUIMessageStream() })) reply = message
  history.push(reply!, user("u2", "And now?"))
  await streamText({
    model,
    tools,
    messages: await convertToModelMessages(history, { tools }),
  }).consumeStream()
  return model.doStreamCalls[1]!.prompt.filter((message) => message.role === "assistant")
}

describe("provider-executed tools", () => {
  it("are taken by Tool.fromAI and Tool.fromAISet", () => {
    const search = anthropic.tools.webSearch_20250305({ maxUses: 2 })
    const one = Tool.fromAI("web_search", search)
    expect(one.provider).toEqual({
      id: "anthropic.web_search_20250305",
      args: { maxUses: 2 },
      executed: true,
    })
    const [fromSet] = Tool.fromAISet({ web_search: search }, { prefix: "anthropic_" })
    expect(fromSet).toMatchObject({ id: "anthropic_web_search", provider: { executed: true } })
  })

  it("are offered to the model as provider tools, stored, shown, and asked no permission", async () => {
    const { model, tool, asked, reported, events, messages } = await twoTurns(searched(), {
      web_search: anthropic.tools.webSearch_20250305({ maxUses: 2 }),
    })
    expect(model.calls[0]!.tools).toContainEqual({
      type: "provider",
      id: "anthropic.web_search_20250305",
      name: "web_search",
      args: { maxUses: 2 },
    })
    expect(asked).toEqual([])
    expect(reported).toEqual([])
    expect(tool).toMatchObject({
      tool: "web_search",
      callID: "srvtoolu_1",
      metadata: { providerExecuted: true },
      state: {
        status: "completed",
        input: { query: "weather in Oslo" },
        output: JSON.stringify(results),
      },
    })
    const updates = events.filter(
      (event) =>
        event.type === "message.part.updated" &&
        event.properties.part.type === "tool" &&
        event.properties.part.state.status === "completed",
    )
    expect(updates).toHaveLength(1)
    const shown = MessageV2.toUIMessages(messages).flatMap((message) => message.parts)
    expect(shown).toContainEqual(
      expect.objectContaining({
        type: "tool-web_search",
        toolCallId: "srvtoolu_1",
        providerExecuted: true,
        state: "output-available",
      }),
    )
  })

  it("are sent back on later requests as the AI SDK sends them", async () => {
    const tools = { web_search: anthropic.tools.webSearch_20250305({ maxUses: 2 }) }
    const { model } = await twoTurns(searched(), tools)
    const ours = model.calls[1]!.prompt.filter((message) => message.role === "assistant")
    expect(ours).toEqual(await sdkSecondRequest(searched(), tools))
    expect(ours[0]?.content).toContainEqual({
      type: "tool-result",
      toolCallId: "srvtoolu_1",
      toolName: "web_search",
      output: { type: "json", value: results },
    })
  })

  it("store the provider's error as the call's error, sent back as the AI SDK sends it", async () => {
    const tools = { web_search: anthropic.tools.webSearch_20250305() }
    const { model, tool, reported } = await twoTurns(searched({ fails: true }), tools)
    expect(tool?.state).toMatchObject({
      status: "error",
      error: JSON.stringify({ type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" }),
    })
    expect(reported).toEqual([])
    const ours = model.calls[1]!.prompt.filter((message) => message.role === "assistant")
    expect(ours).toEqual(await sdkSecondRequest(searched({ fails: true }), tools))
  })

  it("are stored alike when the step goes through streamText", async () => {
    const setup = await turnSetup([chunked(searched())])
    const reported: unknown[] = []
    const processor = SessionProcessor.create({
      runtime: setup.runtime,
      assistantMessage: setup.assistant,
      model: { language: setup.language, info: modelInfo },
      abort: setup.abort.signal,
      stream: SessionProcessor.streamTextModel,
      onToolError: (error) => {
        reported.push(error)
      },
    })
    const search = Tool.fromAI("web_search", anthropic.tools.webSearch_20250305({ maxUses: 2 }))
    expect(await processor.process({ messages: user("How warm is Oslo?"), tools: [search] })).toBe("continue")
    expect(setup.language.calls[0]!.tools).toContainEqual({
      type: "provider",
      id: "anthropic.web_search_20250305",
      name: "web_search",
      args: { maxUses: 2 },
    })
    const tool = (await setup.stored()).parts.find((part) => part.type === "tool")
    expect(tool).toMatchObject({
      metadata: { providerExecuted: true },
      state: { status: "completed", output: JSON.stringify(results), structured: results },
    })
    expect(reported).toEqual([])
  })

  it("are left out when the rules deny them, like any tool", async () => {
    const { runtime } = createTestRuntime({
      tools: { web_search: anthropic.tools.webSearch_20250305() },
    })
    const ids = (ruleset: Permission.Ruleset) => runtime.tools.enabled({ ruleset }).map((tool) => tool.id)
    expect(ids([])).toContain("web_search")
    expect(ids(Permission.fromConfig({ web_search: "deny" }))).not.toContain("web_search")
    await runtime.close()
  })
})
