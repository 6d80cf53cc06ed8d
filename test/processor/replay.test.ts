import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import {
  fixtureEvents,
  fixtureLines,
  partsOf,
  pricedModel,
  replayFetch,
  replaySession,
} from "./replay-helpers.js"

// Recorded real provider streams (test/fixtures/provider-streams, see its README) played through
// the real provider packages. Expected texts are the recorded deltas joined by hand; token counts
// and costs are worked out from each recording's usage event at $3 in / $15 out / $0.30 cache read
// / $3.75 cache write per million tokens.

const anthropic = (file: string, modelID = "claude-sonnet-4-5") => {
  const replay = replayFetch([fixtureLines(file)], { done: false })
  return { ...replay, language: createAnthropic({ apiKey: "test", fetch: replay.fetch })(modelID) }
}

/** The text a chat-completions recording streamed in `field` of its deltas. */
function chatDeltas(file: string, field: "content" | "reasoning_content"): string {
  return fixtureEvents(file)
    .flatMap((event) => event.choices as { delta: Record<string, unknown> }[])
    .map((choice) => (typeof choice.delta[field] === "string" ? choice.delta[field] : ""))
    .join("")
}

const noTokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }

describe("SessionProcessor replaying @ai-sdk/anthropic streams", () => {
  const claude = pricedModel("anthropic", "claude-sonnet-4-5")

  it("stores streamed text, publishes each delta, and prices the turn (anthropic-text)", async () => {
    const model = anthropic("anthropic--anthropic-text.chunks.txt")
    const { user, turn, events } = await replaySession()
    await user("Hello, how are you?")
    const { result, info, parts } = await turn({ language: model.language, info: claude })

    const text =
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"
    expect(result).toBe("continue")
    expect(parts.map((part) => part.type)).toEqual(["step-start", "text", "step-finish"])
    expect(partsOf(parts, "text")[0]!.text).toBe(text)
    const deltas = events.filter((event) => event.type === "message.part.delta")
    expect(deltas.map((event) => event.properties.delta)).toEqual([
      "Hello",
      "! I",
      "'m doing well, thank you for asking",
      ". How are you doing today?",
      " Is",
      " there anything I can help you with?",
    ])
    // input_tokens 12, output_tokens 30: 12 x $3 + 30 x $15 = $486 per million.
    const tokens = { ...noTokens, input: 12, output: 30 }
    expect(partsOf(parts, "step-finish")[0]).toMatchObject({ reason: "stop", cost: 0.000486, tokens })
    expect(info).toMatchObject({ finish: "stop", cost: 0.000486, tokens })
    expect(info.error).toBeUndefined()
    expect(model.requests[0]!.url).toBe("https://api.anthropic.com/v1/messages")
    expect(model.requests[0]!.body).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Hello, how are you?" }] }],
    })
  })

  it("counts the input tokens of message_delta over those of message_start (message-delta-input-tokens)", async () => {
    const model = anthropic("anthropic--anthropic-message-delta-input-tokens.chunks.txt", "claude-opus-4-5")
    const { user, turn } = await replaySession()
    await user("ping")
    const { info, parts } = await turn({
      language: model.language,
      info: pricedModel("anthropic", "claude-opus-4-5"),
    })

    expect(partsOf(parts, "text")[0]!.text).toBe("pong")
    // message_start says 43 input tokens, message_delta 61: 61 x $3 + 2 x $15 = $213 per million.
    expect(info).toMatchObject({
      finish: "stop",
      cost: 0.000213,
      tokens: { ...noTokens, input: 61, output: 2 },
    })
  })

  it("stores thinking with its signature and sends both back on the next call (anthropic-clear-thinking)", async () => {
    const file = "anthropic--anthropic-clear-thinking.1.chunks.txt"
    // The same recording answers both calls; the second request is what matters.
    const replay = replayFetch([fixtureLines(file), fixtureLines(file)], { done: false })
    const language = createAnthropic({ apiKey: "test", fetch: replay.fetch })("claude-sonnet-4-5")
    const stream = { providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } } }
    const { user, turn, events } = await replaySession()
    await user("Multiply 185 by 5.")
    const first = await turn({ language, info: claude, stream })
    // The signature arrives as a delta of its own, with no text: it is stored, not published.
    const deltas = events.flatMap((event) =>
      event.type === "message.part.delta" ? [event.properties.delta] : [],
    )
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas).not.toContain("")

    const signature = fixtureEvents(file).flatMap((event) => {
      const delta = event.delta as { type?: string; signature?: string } | undefined
      return delta?.type === "signature_delta" ? [delta.signature!] : []
    })[0]!
    const reasoning = "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    expect(first.parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "text", "step-finish"])
    const [stored] = partsOf(first.parts, "reasoning")
    expect(stored!.text).toBe(reasoning)
    expect(stored!.metadata).toEqual({ anthropic: { signature } })
    expect(stored!.time.end).toBeGreaterThanOrEqual(stored!.time.start)
    expect(partsOf(first.parts, "text")[0]!.text).toBe("925 ÷ 5 = 185")
    // Anthropic reports thinking inside output_tokens: 69 x $3 + 53 x $15 = $1,002 per million.
    expect(first.info).toMatchObject({
      finish: "stop",
      cost: 0.001002,
      tokens: { ...noTokens, input: 69, output: 53 },
    })

    await user("And divided by 5?")
    await turn({ language, info: claude, stream })
    expect(replay.requests[1]!.body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [
        { role: "user", content: [{ type: "text", text: "Multiply 185 by 5." }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: reasoning, signature },
            { type: "text", text: "925 ÷ 5 = 185" },
          ],
        },
        { role: "user", content: [{ type: "text", text: "And divided by 5?" }] },
      ],
    })
  })

  it("runs a tool called with a nested JSON input (anthropic-json-tool)", async () => {
    const weather = z.object({ location: z.string(), temperature: z.number(), condition: z.string() })
    const json = Tool.define("json", {
      description: "Respond with a JSON object.",
      parameters: z.object({ elements: z.array(weather) }),
      async execute({ elements }) {
        return {
          title: `${elements.length} element(s)`,
          output: elements.map((e) => e.location).join(", "),
          metadata: {},
        }
      },
    })
    const model = anthropic("anthropic--anthropic-json-tool.1.chunks.txt", "claude-haiku-4-5")
    const { user, turn } = await replaySession()
    await user("What is the weather in San Francisco?")
    const { result, info, parts } = await turn({
      language: model.language,
      info: pricedModel("anthropic", "claude-haiku-4-5"),
      stream: { tools: [json] },
    })

    expect(result).toBe("continue")
    expect(parts.map((part) => part.type)).toEqual(["step-start", "tool", "step-finish"])
    const [tool] = partsOf(parts, "tool")
    expect(tool).toMatchObject({ callID: "toolu_01KFbKqPYSuAKujiL6mTfzYA", tool: "json" })
    expect(tool!.state).toMatchObject({
      status: "completed",
      input: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      output: "San Francisco",
      title: "1 element(s)",
    })
    // 849 x $3 + 47 x $15 = $3,252 per million.
    const tokens = { ...noTokens, input: 849, output: 47 }
    expect(partsOf(parts, "step-finish")[0]).toMatchObject({ reason: "tool-calls", cost: 0.003252, tokens })
    expect(info).toMatchObject({ finish: "tool-calls", cost: 0.003252, tokens })
    expect(model.requests[0]!.body).toMatchObject({
      tools: [
        {
          name: "json",
          description: "Respond with a JSON object.",
          input_schema: {
            type: "object",
            properties: {
              elements: { type: "array", items: { properties: { temperature: { type: "number" } } } },
            },
            required: ["elements"],
          },
        },
      ],
    })
  })

  it("runs a tool called with no arguments after some text (anthropic-tool-no-args)", async () => {
    let ran = 0
    const updateIssueList = Tool.define("updateIssueList", {
      description: "Refresh the issue list.",
      parameters: z.object({}),
      async execute() {
        ran++
        return { title: "Issues updated", output: "3 open issues", metadata: { open: 3 } }
      },
    })
    const model = anthropic("anthropic--anthropic-tool-no-args.chunks.txt")
    const { user, turn } = await replaySession()
    await user("Update the issue list.")
    const { info, parts } = await turn({
      language: model.language,
      info: claude,
      stream: { tools: [updateIssueList] },
    })

    expect(ran).toBe(1)
    expect(parts.map((part) => part.type)).toEqual(["step-start", "text", "tool", "step-finish"])
    expect(partsOf(parts, "text")[0]!.text).toBe("I'll update the issue list for you.")
    expect(partsOf(parts, "tool")[0]).toMatchObject({
      callID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
      tool: "updateIssueList",
      state: {
        status: "completed",
        input: {},
        output: "3 open issues",
        title: "Issues updated",
        metadata: { open: 3 },
      },
    })
    // 565 x $3 + 48 x $15 = $2,415 per million.
    expect(info).toMatchObject({
      finish: "tool-calls",
      cost: 0.002415,
      tokens: { ...noTokens, input: 565, output: 48 },
    })
    expect(model.requests[0]!.body).toMatchObject({
      tools: [{ name: "updateIssueList", input_schema: { type: "object", properties: {} } }],
    })
  })

  it("stores a call to a tool it was not given as a tool error, and carries on (anthropic-json-tool)", async () => {
    const model = anthropic("anthropic--anthropic-json-tool.1.chunks.txt", "claude-haiku-4-5")
    const { user, turn } = await replaySession()
    await user("What is the weather in San Francisco?")
    const { result, info, parts } = await turn({
      language: model.language,
      info: pricedModel("anthropic", "claude-haiku-4-5"),
    })

    expect(result).toBe("continue")
    expect(partsOf(parts, "tool")[0]!.state).toMatchObject({
      status: "error",
      input: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      error: expect.stringContaining("unavailable tool 'json'"),
    })
    expect(info.error).toBeUndefined()
  })
})

describe("SessionProcessor replaying @ai-sdk/openai streams", () => {
  it("stores a long chat-completions answer (openai-text)", async () => {
    const file = "openai-chat--openai-text.chunks.txt"
    const replay = replayFetch([fixtureLines(file)], { done: true })
    const language = createOpenAI({ apiKey: "test", fetch: replay.fetch }).chat("gpt-4.1-nano")
    const { user, turn, events } = await replaySession()
    await user("Invent a new holiday and describe its traditions.")
    const { result, info, parts } = await turn({ language, info: pricedModel("openai", "gpt-4.1-nano") })

    const text = chatDeltas(file, "content")
    expect(text).toHaveLength(1724)
    expect(text.startsWith("**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually")).toBe(true)
    expect(text.endsWith("shared human experiences and mutual respect.")).toBe(true)
    expect(result).toBe("continue")
    expect(partsOf(parts, "text").map((part) => part.text)).toEqual([text])
    expect(events.filter((event) => event.type === "message.part.delta")).toHaveLength(300)
    // prompt_tokens 16, completion_tokens 300: 16 x $3 + 300 x $15 = $4,548 per million.
    const tokens = { ...noTokens, input: 16, output: 300 }
    expect(partsOf(parts, "step-finish")[0]).toMatchObject({ reason: "stop", cost: 0.004548, tokens })
    expect(info).toMatchObject({ finish: "stop", cost: 0.004548, tokens })
    expect(replay.requests[0]!.url).toBe("https://api.openai.com/v1/chat/completions")
    expect(replay.requests[0]!.body).toMatchObject({
      model: "gpt-4.1-nano",
      messages: [{ role: "user", content: "Invent a new holiday and describe its traditions." }],
      stream_options: { include_usage: true },
    })
  })

  describe("a four-call tool loop on the Responses API with encrypted reasoning", () => {
    const file = "openai-responses--openai-reasoning-encrypted-content.1.chunks.txt"
    const events = fixtureEvents(file)
    // The recording holds four responses, one per model call.
    const responses: string[][] = []
    for (const line of fixtureLines(file)) {
      if ((JSON.parse(line) as { type: string }).type === "response.created") responses.push([])
      responses.at(-1)!.push(line)
    }
    const reasoningItem = events
      .filter((event) => event.type === "response.output_item.done")
      .map((event) => event.item as { type: string; id: string; encrypted_content: string })
      .find((item) => item.type === "reasoning")!
    const calculator = Tool.define("calculator", {
      description: "A minimal calculator for basic arithmetic. Call it once per step.",
      parameters: z.object({
        a: z.number().describe("First operand."),
        b: z.number().describe("Second operand."),
        op: z.enum(["add", "subtract", "multiply", "divide"]).describe("Arithmetic operation to perform."),
      }),
      async execute({ a, b, op }) {
        const value = op === "add" ? a + b : op === "subtract" ? a - b : op === "multiply" ? a * b : a / b
        return { title: `${a} ${op} ${b}`, output: String(value), metadata: { value } }
      },
    })
    const stream = {
      tools: [calculator],
      providerOptions: {
        openai: { store: false, include: ["reasoning.encrypted_content"], reasoningSummary: "detailed" },
      },
    }

    async function run() {
      const replay = replayFetch(responses, { done: true })
      const language = createOpenAI({ apiKey: "test", fetch: replay.fetch }).responses("gpt-5.1-codex-max")
      const info = pricedModel("openai", "gpt-5.1-codex-max")
      const session = await replaySession()
      await session.user("Compute ((12 + 7) x 3) x 10 with the calculator, one step at a time.")
      const turns = []
      for (let call = 0; call < 4; call++) turns.push(await session.turn({ language, info, stream }))
      return { ...session, replay, turns }
    }

    it("stores the reasoning summary with the final encrypted content, then each call's tool and the answer", async () => {
      const { turns } = await run()
      expect(responses).toHaveLength(4)
      expect(turns.map((turn) => turn.result)).toEqual(["continue", "continue", "continue", "continue"])
      expect(turns.map((turn) => turn.info.finish)).toEqual([
        "tool-calls",
        "tool-calls",
        "tool-calls",
        "stop",
      ])

      const first = turns[0]!
      expect(first.parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "tool", "step-finish"])
      const [reasoning] = partsOf(first.parts, "reasoning")
      expect(reasoning!.text).toBe(
        "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, " +
          "and finally multiply that by 10, reporting the final product.",
      )
      // output_item.added and output_item.done carry different encrypted content: the final one is kept.
      expect(reasoning!.metadata).toEqual({
        openai: { itemId: reasoningItem.id, reasoningEncryptedContent: reasoningItem.encrypted_content },
      })

      const tools = turns.slice(0, 3).map((turn) => partsOf(turn.parts, "tool")[0]!)
      expect(tools.map((tool) => tool.callID)).toEqual([
        "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        "call_Q6pW65MUgW9vF59BmItYGos3",
        "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
      ])
      expect(tools.map((tool) => tool.state)).toMatchObject([
        { status: "completed", input: { a: 12, b: 7, op: "add" }, output: "19", title: "12 add 7" },
        { status: "completed", input: { a: 19, b: 3, op: "multiply" }, output: "57" },
        {
          status: "completed",
          input: { a: 57, b: 10, op: "multiply" },
          output: "570",
          metadata: { value: 570 },
        },
      ])
      expect(turns[3]!.parts.map((part) => part.type)).toEqual(["step-start", "text", "step-finish"])
      expect(partsOf(turns[3]!.parts, "text")[0]!.text).toBe("The final result is **570**.")
    })

    it("prices each call from its response.completed usage and adds them up on the session", async () => {
      const { turns, runtime, session } = await run()
      // input/output tokens per call: 134/28, 221/26, 260/26, 299/12; no cache, no reasoning tokens.
      expect(turns.map((turn) => turn.info.tokens)).toEqual([
        { ...noTokens, input: 134, output: 28 },
        { ...noTokens, input: 221, output: 26 },
        { ...noTokens, input: 260, output: 26 },
        { ...noTokens, input: 299, output: 12 },
      ])
      // 134x3 + 28x15 = 822; 221x3 + 26x15 = 1,053; 260x3 + 26x15 = 1,170; 299x3 + 12x15 = 1,077.
      expect(turns.map((turn) => turn.info.cost)).toEqual([0.000822, 0.001053, 0.00117, 0.001077])
      expect(turns.map((turn) => partsOf(turn.parts, "step-finish")[0]!.cost)).toEqual([
        0.000822, 0.001053, 0.00117, 0.001077,
      ])
      expect(await runtime.session.get(session.id)).toMatchObject({
        cost: 0.004122,
        tokens: { ...noTokens, input: 914, output: 92 },
      })
    })

    // MessageV2.toModelMessages sends a tool part's `metadata` back as the call's provider metadata.
    it("keeps each tool call's provider metadata (its Responses item ID) on its tool part", async () => {
      const { turns } = await run()
      const calls = events
        .filter((event) => event.type === "response.output_item.done")
        .map((event) => event.item as { type: string; id: string })
        .filter((item) => item.type === "function_call")
      expect(turns.slice(0, 3).map((turn) => partsOf(turn.parts, "tool")[0]!.metadata)).toEqual(
        calls.map((call) => ({ openai: { itemId: call.id } })),
      )
    })

    it("sends the tool's schema, then the encrypted reasoning, the call and its result back", async () => {
      const { replay } = await run()
      expect(replay.requests.map((request) => request.url)).toEqual(
        Array(4).fill("https://api.openai.com/v1/responses"),
      )
      expect(replay.requests[0]!.body).toMatchObject({
        model: "gpt-5.1-codex-max",
        store: false,
        include: ["reasoning.encrypted_content"],
        tools: [
          {
            type: "function",
            name: "calculator",
            parameters: {
              type: "object",
              properties: { op: { type: "string", enum: ["add", "subtract", "multiply", "divide"] } },
              required: ["a", "b", "op"],
            },
          },
        ],
      })
      const input = (replay.requests[1]!.body as { input: unknown[] }).input
      expect(input).toEqual([
        {
          role: "user",
          content: [
            {
              type: "input_text",
              text: "Compute ((12 + 7) x 3) x 10 with the calculator, one step at a time.",
            },
          ],
        },
        expect.objectContaining({
          type: "reasoning",
          id: reasoningItem.id,
          encrypted_content: reasoningItem.encrypted_content,
          summary: [{ type: "summary_text", text: expect.stringContaining("**Calculating step-by-step") }],
        }),
        expect.objectContaining({
          type: "function_call",
          call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
          name: "calculator",
          arguments: '{"a":12,"b":7,"op":"add"}',
        }),
        { type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19" },
      ])
      expect((replay.requests[3]!.body as { input: unknown[] }).input.at(-1)).toEqual({
        type: "function_call_output",
        call_id: "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
        output: "570",
      })
    })
  })
})

describe("SessionProcessor replaying @ai-sdk/openai-compatible streams (xAI)", () => {
  const grok = pricedModel("xai", "grok-3-mini")
  const xai = (file: string) => {
    const replay = replayFetch([fixtureLines(file)], { done: true })
    const provider = createOpenAICompatible({
      name: "xai",
      baseURL: "https://api.x.ai/v1",
      fetch: replay.fetch,
    })
    return { ...replay, language: provider("grok-3-mini") }
  }

  it("stores reasoning_content as reasoning and the answer as text (xai-text)", async () => {
    const file = "openai-compatible-chat--xai-text.chunks.txt"
    const model = xai(file)
    const { user, turn } = await replaySession()
    await user("Say a single word.")
    const { result, info, parts } = await turn({ language: model.language, info: grok })

    const reasoning = chatDeltas(file, "reasoning_content")
    expect(reasoning).toHaveLength(1455)
    expect(reasoning.endsWith("No punctuation if possible, just the word.\n\nResponse: Grok")).toBe(true)
    expect(result).toBe("continue")
    expect(parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "text", "step-finish"])
    expect(partsOf(parts, "reasoning")[0]!.text).toBe(reasoning)
    expect(partsOf(parts, "text")[0]!.text).toBe("Grok")
    // prompt_tokens 12 of which cached_tokens 11; reasoning_tokens 340.
    expect(info).toMatchObject({
      finish: "stop",
      tokens: { input: 1, reasoning: 340, cache: { read: 11, write: 0 } },
    })
    expect(model.requests[0]!.url).toBe("https://api.x.ai/v1/chat/completions")
    expect(model.requests[0]!.body).toMatchObject({
      model: "grok-3-mini",
      messages: [{ role: "user", content: "Say a single word." }],
    })
  })

  // xAI counts reasoning apart from completion_tokens (total_tokens = prompt + completion + reasoning),
  // and @ai-sdk/openai-compatible passes completion_tokens on as outputTokens.
  it("counts and prices the output tokens xAI reports beside its reasoning tokens (xai-text)", async () => {
    const model = xai("openai-compatible-chat--xai-text.chunks.txt")
    const { user, turn } = await replaySession()
    await user("Say a single word.")
    const { info } = await turn({ language: model.language, info: grok })
    // 1 x $3 + 2 x $15 + 340 reasoning x $15 + 11 cached x $0.30 = $5,136.30 per million.
    expect(info).toMatchObject({
      tokens: { input: 1, output: 2, reasoning: 340, cache: { read: 11, write: 0 } },
      cost: 0.0051363,
    })
  })

  it("counts and prices the output tokens xAI reports beside its reasoning tokens (xai-tool-call)", async () => {
    const model = xai("openai-compatible-chat--xai-tool-call.chunks.txt")
    const { user, turn } = await replaySession()
    await user("What is the weather in San Francisco?")
    const { info } = await turn({ language: model.language, info: grok })
    // 1 x $3 + 26 x $15 + 227 reasoning x $15 + 306 cached x $0.30 = $3,889.80 per million.
    expect(info).toMatchObject({
      tokens: { input: 1, output: 26, reasoning: 227, cache: { read: 306, write: 0 } },
      cost: 0.0038898,
    })
  })

  it("runs the tool the model called after reasoning (xai-tool-call)", async () => {
    const file = "openai-compatible-chat--xai-tool-call.chunks.txt"
    const weather = Tool.define("weather", {
      description: "Get the weather in a location",
      parameters: z.object({ location: z.string().describe("The location to get the weather for") }),
      async execute({ location }) {
        return { title: location, output: `${location}: 18°C, fog`, metadata: { celsius: 18 } }
      },
    })
    const model = xai(file)
    const { user, turn } = await replaySession()
    await user("What is the weather in San Francisco?")
    const { result, info, parts } = await turn({
      language: model.language,
      info: grok,
      stream: { tools: [weather] },
    })

    expect(result).toBe("continue")
    expect(parts.map((part) => part.type)).toEqual(["step-start", "reasoning", "tool", "step-finish"])
    expect(partsOf(parts, "reasoning")[0]!.text).toBe(chatDeltas(file, "reasoning_content"))
    expect(partsOf(parts, "tool")[0]).toMatchObject({
      callID: "call_79382389",
      tool: "weather",
      state: {
        status: "completed",
        input: { location: "San Francisco" },
        output: "San Francisco: 18°C, fog",
      },
    })
    // prompt_tokens 307 of which cached_tokens 306; reasoning_tokens 227.
    expect(info).toMatchObject({
      finish: "tool-calls",
      tokens: { input: 1, reasoning: 227, cache: { read: 306, write: 0 } },
    })
    expect(model.requests[0]!.body).toMatchObject({
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            description: "Get the weather in a location",
            parameters: { properties: { location: { type: "string" } }, required: ["location"] },
          },
        },
      ],
    })
  })
})
