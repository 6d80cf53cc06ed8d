import type { LanguageModel, ModelMessage, TextStreamPart, ToolSet } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { streamTextModel } from "../../src/processor/model-stream.js"
import type { StreamInput } from "../../src/processor/stream-input.js"
import { createProviderStream } from "../../src/provider-call/provider-stream.js"
import { type ScriptStep, say, scriptedModel } from "../../src/testing/index.js"
import { toAITools } from "../../src/tool/ai-tools.js"
import { Tool } from "../../src/tool/index.js"

type Part = TextStreamPart<ToolSet>

const echo = Tool.define("echo", {
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ title: text, output: `echo: ${text}`, metadata: {} }),
})
const refuse = Tool.define("refuse", {
  description: "Always fails",
  parameters: z.object({}),
  execute: async () => {
    throw new Error("refused on purpose")
  },
})

const history: ModelMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "first" },
      { type: "text", text: "" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "thinking", providerOptions: { anthropic: { signature: "sig" } } },
      { type: "text", text: "" },
      { type: "text", text: "calling", providerOptions: { openai: { itemId: "msg_1" } } },
      { type: "tool-call", toolCallId: "c1", toolName: "echo", input: { text: "a" } },
      { type: "tool-call", toolCallId: "c2", toolName: "echo", input: { text: "b" } },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "c1", toolName: "echo", output: { type: "text", value: "A" } },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c2",
        toolName: "echo",
        output: { type: "error-text", value: "B failed" },
      },
    ],
    providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
  },
  { role: "assistant", content: "done" },
  { role: "user", content: "second" },
]

function toolsFor(infos: Tool.Info[]): ToolSet {
  return toAITools(infos, (callID, abort) => ({
    sessionID: "ses_test",
    messageID: "msg_test",
    callID,
    agent: "build",
    abort,
    metadata: async () => {},
    ask: async () => {},
  }))
}

async function collect(stream: AsyncIterable<Part>): Promise<Part[]> {
  const parts: Part[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

/**
 * The parts a processor reads, without what differs by design (generated IDs, times, SDK-only
 * parts). Results of tools that ran side by side come in the order they settled: sorted by call.
 */
function comparable(parts: Part[]): unknown[] {
  const settled = (part: Part) => part.type === "tool-result" || part.type === "tool-error"
  const results = parts.filter(settled).sort((a, b) => callOf(a).localeCompare(callOf(b)))
  return parts
    .map((part) => (settled(part) ? results.shift()! : part))
    .filter((part) => !["start", "finish", "raw"].includes(part.type))
    .map((part) => {
      const copy: Record<string, unknown> = { ...part }
      if (part.type === "finish-step") {
        copy.response = undefined
        // ai 7 adds timings and drops usage fields it deprecated; the processor reads neither.
        copy.performance = undefined
        const { cachedInputTokens, reasoningTokens, ...usage } = part.usage as Record<string, unknown>
        copy.usage = usage
      }
      if (part.type === "start-step") copy.request = undefined
      if (copy.dynamic === false) copy.dynamic = undefined
      // An error is compared by its message: ai 7 prefixes an invalid call's with the error's name.
      if ("error" in copy && copy.error instanceof Error) copy.error = copy.error.message
      if (typeof copy.error === "string") copy.error = copy.error.replace(/^AI_\w+: /, "")
      return JSON.parse(JSON.stringify(copy))
    })
}

/** A spec model whose one call streams `stream`. */
function streaming(stream: ReadableStream<unknown>): LanguageModel {
  return { ...scriptedModel([]), doStream: async () => ({ stream }) } as unknown as LanguageModel
}

function callOf(part: Part): string {
  return "toolCallId" in part ? part.toolCallId : ""
}

/** The same call through `streamText` and through the spec directly, each on its own scripted model. */
async function both(
  steps: ScriptStep[],
  request: Partial<StreamInput> = {},
  infos: Tool.Info[] = [echo, refuse],
) {
  const full: StreamInput = { messages: history, system: "You are terse.", tools: infos, ...request }
  const viaSDK = scriptedModel([steps])
  const direct = scriptedModel([steps])
  const abort = new AbortController().signal
  const sdkParts = await collect(
    streamTextModel({ model: viaSDK, request: full, tools: toolsFor(infos), abort }),
  )
  const directParts = await collect(
    createProviderStream()({ model: direct, request: full, tools: toolsFor(infos), abort }),
  )
  return { viaSDK, direct, sdkParts, directParts }
}

describe("createProviderStream: the model call without streamText", () => {
  it("sends the provider what streamText sends: prompt, tools, tool choice and settings", async () => {
    const { viaSDK, direct } = await both([say.text("ok")], {
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 512,
      toolChoice: { type: "tool", toolName: "echo" },
      providerOptions: { anthropic: { thinking: { type: "enabled" } } },
    })
    const sent = (call: (typeof viaSDK.calls)[number]) => ({
      prompt: call.prompt,
      tools: call.tools,
      toolChoice: call.toolChoice,
      temperature: call.temperature,
      topP: call.topP,
      maxOutputTokens: call.maxOutputTokens,
      providerOptions: call.providerOptions,
    })
    expect(direct.calls).toHaveLength(1)
    expect(JSON.parse(JSON.stringify(sent(direct.calls[0]!)))).toEqual(
      JSON.parse(JSON.stringify(sent(viaSDK.calls[0]!))),
    )
    // The two consecutive tool messages went out as one, as the SDK merges them.
    expect(direct.calls[0]!.prompt.filter((message) => message.role === "tool")).toHaveLength(1)
  })

  it("streams the parts streamText streams: text, reasoning, tool calls, their results, the step's usage", async () => {
    const { sdkParts, directParts } = await both([
      say.reasoning("hmm", { chunks: 2, metadata: { anthropic: { signature: "s" } } }),
      say.text("Let me check.", { chunks: 3 }),
      say.toolCall("echo", { text: "hi" }),
      say.toolCall("refuse", {}),
      say.usage({ input: 100, output: 20, reasoning: 5, cacheRead: 10, cacheWrite: 3 }),
    ])
    expect(comparable(directParts)).toEqual(comparable(sdkParts))
    expect(directParts.map((part) => part.type)).toContain("tool-result")
    const failed = directParts.find((part) => part.type === "tool-error")
    // The error is kept as thrown, so the processor can tell a person's "no" from a failure.
    expect(failed).toMatchObject({
      toolName: "refuse",
      error: expect.objectContaining({ message: "refused on purpose" }),
    })
  })

  it("reports an unknown tool and unreadable input to the model as streamText does", async () => {
    const { sdkParts, directParts } = await both([
      say.chunk({ type: "tool-call", toolCallId: "u1", toolName: "nope", input: "{}" }),
      say.chunk({ type: "tool-call", toolCallId: "u2", toolName: "echo", input: "{not json" }),
      say.finish("tool-calls"),
    ])
    expect(comparable(directParts)).toEqual(comparable(sdkParts))
    const errors = directParts.filter((part) => part.type === "tool-error")
    expect(errors.map((part) => part.type === "tool-error" && part.error)).toEqual([
      expect.stringContaining("unavailable tool 'nope'"),
      expect.stringContaining("Invalid input for tool echo"),
    ])
  })

  it("runs no tool when the model stopped for length, as streamText", async () => {
    const { sdkParts, directParts } = await both([
      say.toolCall("echo", { text: "cut" }),
      say.finish("length"),
    ])
    expect(comparable(directParts)).toEqual(comparable(sdkParts))
    expect(directParts.some((part) => part.type === "tool-result")).toBe(false)
  })

  it("keeps text IDs unique when a provider reuses one for a later block", async () => {
    const block = (text: string): ScriptStep[] => [
      say.chunk({ type: "text-start", id: "0" }),
      say.chunk({ type: "text-delta", id: "0", delta: text }),
      say.chunk({ type: "text-end", id: "0" }),
    ]
    const { sdkParts, directParts } = await both([...block("one"), ...block("two")])
    const starts = directParts.filter((part) => part.type === "text-start").map((part) => part.id)
    expect(new Set(starts).size).toBe(2)
    expect(directParts.filter((part) => part.type === "text-delta").map((part) => part.text)).toEqual([
      "one",
      "two",
    ])
    expect(sdkParts.filter((part) => part.type === "text-start")).toHaveLength(2)
  })

  it("fails with the SDK's NoOutputGeneratedError when the stream ends with nothing", async () => {
    // The scripted model always finishes; a bare stream shows the case.
    const bare = streaming(new ReadableStream({ start: (controller) => controller.close() }))
    const stream = createProviderStream()({
      model: bare,
      request: { messages: history },
      tools: {},
      abort: new AbortController().signal,
    })
    await expect(collect(stream)).rejects.toThrow(/No output generated/)
  })

  it("converts each message once: a later call reuses what an earlier one converted", async () => {
    const stream = createProviderStream()
    const model = scriptedModel([[say.text("one")], [say.text("two")]])
    const first: ModelMessage = { role: "user", content: "original" }
    const abort = new AbortController().signal
    await collect(stream({ model, request: { messages: [first] }, tools: {}, abort }))
    // Changing the object in place is not seen: the message was converted at its first call.
    first.content = "changed"
    await collect(
      stream({ model, request: { messages: [first, { role: "user", content: "new" }] }, tools: {}, abort }),
    )
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain("original")
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain("new")
  })

  it("extends a conversation's prompt from its last call, as a fresh conversion would build it", async () => {
    const stream = createProviderStream()
    const model = scriptedModel([[say.text("one")], [say.text("two")], [say.text("fresh")]])
    const abort = new AbortController().signal
    const first = [...history]
    await collect(stream({ model, request: { messages: first, system: "S" }, tools: {}, abort }))
    const sentFirst = structuredClone(model.calls[0]!.prompt)
    // A tool message right after the last call's tool message is merged into a copy of it.
    const later: ModelMessage[] = [
      ...first.slice(0, 4),
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c9",
            toolName: "echo",
            output: { type: "text", value: "late" },
          },
        ],
      },
    ]
    await collect(stream({ model, request: { messages: first.slice(0, 4), system: "S" }, tools: {}, abort }))
    await collect(stream({ model, request: { messages: later, system: "S" }, tools: {}, abort }))
    const fresh = scriptedModel([[say.text("fresh")]])
    await collect(
      createProviderStream()({ model: fresh, request: { messages: later, system: "S" }, tools: {}, abort }),
    )
    expect(model.calls[2]!.prompt).toEqual(fresh.calls[0]!.prompt)
    expect(model.calls[2]!.prompt.filter((message) => message.role === "tool")).toHaveLength(1)
    expect(model.calls[0]!.prompt).toEqual(sentFirst)
  })

  it("refuses a prompt whose tool call has no result, as streamText does", async () => {
    const open: ModelMessage[] = [
      history[0]!,
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "echo", input: {} }] },
      { role: "user", content: "next" },
    ]
    const model = scriptedModel([[say.text("never")]])
    const call = () =>
      collect(
        createProviderStream()({
          model,
          request: { messages: open },
          tools: {},
          abort: new AbortController().signal,
        }),
      )
    await expect(call()).rejects.toThrow("Tool result is missing for tool call c1.")
    expect(model.calls).toHaveLength(0)
  })

  it("sends a data-URL file and a result's file data as streamText does; v3 models go direct", async () => {
    const withFiles: ModelMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          {
            type: "file",
            data: "data:image/png;base64,iVBORw0KGgo=",
            mediaType: "image/png",
            filename: "a.png",
          },
        ],
      },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "s1", toolName: "echo", input: {} }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "s1",
            toolName: "echo",
            output: {
              type: "content",
              value: [
                { type: "text", text: "shot" },
                { type: "file-data", data: "iVBORw0KGgo=", mediaType: "image/png" },
              ],
            },
          },
        ],
      },
    ]
    const viaSDK = scriptedModel([[say.text("seen")]])
    const direct = scriptedModel([[say.text("seen")]])
    const abort = new AbortController().signal
    await collect(streamTextModel({ model: viaSDK, request: { messages: withFiles }, tools: {}, abort }))
    const parts = await collect(
      createProviderStream()({ model: direct, request: { messages: withFiles }, tools: {}, abort }),
    )
    expect(direct.calls[0]!.prompt).toEqual(viaSDK.calls[0]!.prompt)
    // streamText's own parts (start, finish) show which path ran: the SDK's only for v4 (ai 7).
    expect(parts.some((part) => part.type === "finish")).toBe(direct.specificationVersion !== "v3")
  })

  it("leaves a file given by URL to streamText", async () => {
    // The model takes image URLs, so the SDK passes the link on and fetches nothing.
    const model = new MockLanguageModelV3({
      supportedUrls: { "image/*": [/^https:\/\//] },
      doStream: async () => ({ stream: new ReadableStream({ start: (controller) => controller.close() }) }),
    })
    const withLink: ModelMessage[] = [
      {
        role: "user",
        content: [{ type: "file", data: "https://example.com/a.png", mediaType: "image/png" }],
      },
    ]
    const parts = await collect(
      createProviderStream()({
        model,
        request: { messages: withLink },
        tools: {},
        abort: new AbortController().signal,
      }),
    )
    expect(parts.map((part) => part.type)).toContain("start")
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).toContain("https://example.com/a.png")
  })

  it("stops reading when closed, and the provider's request is cancelled", async () => {
    let cancelled = false
    const endless = streaming(
      new ReadableStream({
        pull: (controller) => controller.enqueue({ type: "text-delta", id: "t", delta: "x" }),
        cancel: () => {
          cancelled = true
        },
      }),
    )
    const stream = createProviderStream()({
      model: endless,
      request: { messages: history },
      tools: {},
      abort: new AbortController().signal,
    })[Symbol.asyncIterator]()
    expect((await stream.next()).value).toMatchObject({ type: "start-step" })
    await stream.return?.()
    expect(cancelled).toBe(true)
    expect(await stream.next()).toEqual({ done: true, value: undefined })
  })
})
