import { APICallError } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Agent, type Event, type MessageV2, Tool } from "../../src/index.js"
import {
  type CallOptions,
  createTestRuntime,
  say,
  scriptedModel,
  type Turn,
} from "../../src/testing/index.js"

const read = Tool.define("read", {
  description: "Read a file",
  parameters: z.object({ path: z.string(), size: z.number().optional() }),
  async execute({ path, size }) {
    return {
      title: path,
      output: size === undefined ? `contents of ${path}` : "r".repeat(size),
      metadata: {},
    }
  },
})

const overflowError = () =>
  new APICallError({
    message: "prompt is too long: 250000 tokens > 200000 maximum",
    url: "https://api.example.com/v1/messages",
    requestBodyValues: {},
    statusCode: 400,
    isRetryable: false,
  })

// usable = 100,000 - min(20,000, 32,000) = 80,000; tail budget = 8,000.
const modelInfo = { limit: { context: 100_000, output: 20_000 } }

async function setup(options: Parameters<typeof createTestRuntime>[0]) {
  const { runtime, model } = createTestRuntime({ tools: [read], modelInfo, ...options })
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create({ title: "Fixed title" })
  const ask = (text: string, extra: MessageV2.Part[] = []) =>
    runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text }, ...(extra as never[])],
    })
  const history = () => runtime.session.messages(session.id)
  return { runtime, model, session, events, ask, history }
}

const promptOf = (call: CallOptions | undefined) => JSON.stringify(call?.prompt ?? [])
const systemOf = (call: CallOptions | undefined) =>
  (call?.prompt ?? []).flatMap((message) => (message.role === "system" ? [message.content] : [])).join("\n")
const textOf = (message: MessageV2.WithParts) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
const compactionOf = (message: MessageV2.WithParts) =>
  message.parts.find((part) => part.type === "compaction")

describe("automatic compaction", () => {
  it("summarises when usage reaches the usable window; the next call gets summary + tail + new message only", async () => {
    const { model, events, ask, history } = await setup({
      turns: [
        [say.text("ALPHA answer"), say.usage({ input: 20_000, output: 500 })],
        [say.text("BRAVO answer"), say.usage({ input: 50_000, output: 500 })],
        [say.toolCall("read", { path: "c.ts" }), say.usage({ input: 79_000, output: 1_000 })],
        [say.text("## Goal\nSUMMARY-ONE"), say.usage({ input: 30_000, output: 800 })],
        [say.text("CHARLIE answer"), say.usage({ input: 3_000, output: 100 })],
        [say.text("DELTA answer"), say.usage({ input: 3_500, output: 100 })],
      ],
    })
    await ask("ALPHA question")
    await ask("BRAVO question")
    const answer = await ask("CHARLIE question")
    expect(textOf(answer)).toBe("CHARLIE answer")
    expect(model.calls).toHaveLength(5)

    // The summary call: the compaction agent, no tools, the history before the tail.
    const summaryCall = model.calls[3]
    expect(summaryCall?.tools ?? []).toEqual([])
    expect(systemOf(summaryCall)).toContain("You summarise a conversation")
    expect(promptOf(summaryCall)).toContain("ALPHA question")
    expect(promptOf(summaryCall)).not.toContain("BRAVO question")
    expect(promptOf(summaryCall)).toContain("Summarise the conversation above")

    const stored = await history()
    const request = stored.find((message) => compactionOf(message))!
    const bravo = stored.find((message) => textOf(message) === "BRAVO question")!
    expect(compactionOf(request)).toMatchObject({ auto: true, tailStartID: bravo.info.id })
    const summary = stored.find((message) => message.info.role === "assistant" && message.info.summary)!
    expect(summary.info).toMatchObject({ agent: "compaction", parentID: request.info.id, finish: "stop" })
    const resume = stored[stored.indexOf(summary) + 1]!
    expect(resume.parts).toMatchObject([
      { type: "text", text: Agent.Prompt.COMPACTION_CONTINUE, synthetic: true },
    ])
    expect(events.filter((event) => event.type === "session.compacted")).toHaveLength(1)

    // After compaction: the summary, the tail (BRAVO and CHARLIE's turn so far), the note; no ALPHA.
    const resumed = promptOf(model.calls[4])
    for (const expected of [
      "What did we do so far?",
      "SUMMARY-ONE",
      "BRAVO question",
      "CHARLIE question",
      "contents of c.ts",
    ])
      expect(resumed).toContain(expected)
    expect(resumed).not.toContain("ALPHA")

    await ask("DELTA question")
    const next = promptOf(model.calls[5])
    expect(next).toContain("SUMMARY-ONE")
    expect(next).toContain("DELTA question")
    expect(next).not.toContain("ALPHA")
    expect(next.indexOf("SUMMARY-ONE")).toBeLessThan(next.indexOf("BRAVO question"))
    expect(model.calls).toHaveLength(6)
  })

  it("recovers from a provider's overflow error by compacting and replaying the interrupted request", async () => {
    const { model, events, ask, history } = await setup({
      compaction: { preserveRecentTokens: 100 },
      turns: [
        [say.text("ALPHA answer"), say.usage({ input: 10_000, output: 100 })],
        { throws: overflowError() },
        [say.text("SUMMARY-ONE")],
        [say.text("BRAVO answer")],
      ],
    })
    await ask("ALPHA question")
    const answer = await ask(`BRAVO question ${"b".repeat(1_000)}`)
    expect(textOf(answer)).toBe("BRAVO answer")
    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    expect(model.calls).toHaveLength(4)

    const stored = await history()
    // The refused attempt is gone; the request and the replayed question follow the summary.
    expect(stored.map((message) => message.info.role)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
    ])
    expect(compactionOf(stored[3]!)).toMatchObject({ auto: true, overflow: true })
    expect(compactionOf(stored[3]!)).not.toHaveProperty("tailStartID")
    expect(textOf(stored[5]!)).toBe(textOf(stored[2]!))
    expect(stored[5]!.info.id).not.toBe(stored[2]!.info.id)

    const replayed = promptOf(model.calls[3])
    expect(replayed).toContain("SUMMARY-ONE")
    expect(replayed).toContain("BRAVO question")
    expect(replayed).not.toContain("ALPHA")
    expect(events.some((event) => event.type === "session.error")).toBe(false)
  })

  describe("replaying a request with an image after the provider refused it as too large", () => {
    const IMAGE =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    const image = {
      type: "file",
      mime: "image/png",
      url: `data:image/png;base64,${IMAGE}`,
      filename: "cat.png",
    }
    const fileParts = (call: CallOptions | undefined) =>
      (call?.prompt ?? []).flatMap((message) =>
        Array.isArray(message.content) ? message.content.filter((part) => part.type === "file") : [],
      )

    for (const [name, compaction] of [
      ["when the request fits the retained tail", {}],
      ["when the request is summarised and replayed", { preserveRecentTokens: 100 }],
    ] as const) {
      it(`sends a placeholder instead of the image ${name}`, async () => {
        const { model, ask, history } = await setup({
          compaction,
          turns: [
            [say.text("ALPHA answer"), say.usage({ input: 10_000, output: 100 })],
            { throws: overflowError() },
            [say.text("SUMMARY-ONE")],
            [say.text("BRAVO answer")],
          ],
        })
        await ask("ALPHA question")
        const answer = await ask("What is in this picture?", [image as MessageV2.Part])
        expect(textOf(answer)).toBe("BRAVO answer")
        // The refused call carried the image; nothing after it does.
        expect(fileParts(model.calls[1])).toHaveLength(1)
        for (const call of model.calls.slice(2)) {
          expect(fileParts(call)).toEqual([])
          expect(promptOf(call)).not.toContain(IMAGE)
        }
        const resumed = promptOf(model.calls[3])
        expect(resumed).toContain("What is in this picture?")
        expect(resumed).toContain("[Attached image/png: cat.png]")
        // The user's own message keeps its image.
        expect((await history())[2]!.parts).toContainEqual(
          expect.objectContaining({ type: "file", filename: "cat.png" }),
        )
      })
    }
  })

  it("ends with a clear error after a bounded number of calls when even the summary overflows", async () => {
    const { model, events, ask, runtime, session } = await setup({
      model: scriptedModel([[say.text("ALPHA answer")]], { fallback: { throws: overflowError() } }),
    })
    await ask("ALPHA question")
    const answer = await ask("BRAVO question")
    // The turn's call, the summary request, the reduced summary request; then it stops.
    expect(model.calls).toHaveLength(4)
    expect(answer.info).toMatchObject({ summary: true, error: { name: "ContextOverflowError" } })
    expect(answer.info.role === "assistant" && answer.info.error?.data.message).toMatch(
      /too large to compact/,
    )
    expect(events.filter((event) => event.type === "session.error")).toHaveLength(1)
    expect(runtime.session.status(session.id)).toEqual({ type: "idle" })
  })

  it("does not compact again when the first call after a compaction still overflows", async () => {
    const { model, ask } = await setup({
      turns: [
        [say.text("ALPHA answer")],
        { throws: overflowError() },
        [say.text("SUMMARY-ONE")],
        { throws: overflowError() },
      ],
    })
    await ask("ALPHA question")
    const answer = await ask("BRAVO question")
    expect(model.calls).toHaveLength(4)
    expect(answer.info).toMatchObject({ error: { name: "ContextOverflowError" } })
    expect(answer.info.role === "assistant" && answer.info.error?.data.message).toMatch(
      /even after compaction/,
    )
  })

  it("squeezes a summary request that would not fit before sending it", async () => {
    const { model, ask } = await setup({
      modelInfo: { limit: { context: 30_000, output: 4_000 } },
      compaction: { tailTurns: 0 },
      turns: [
        [say.toolCall("read", { path: "big.ts", size: 20_000 }), say.usage({ input: 26_500 })],
        [say.text("SUMMARY-ONE")],
        [say.text("ALPHA answer")],
      ],
    })
    // 150,000 characters (37,500 estimated tokens) cannot fit a 26,000-token window.
    const answer = await ask(`ALPHA question ${"q".repeat(150_000)}`)
    expect(textOf(answer)).toBe("ALPHA answer")
    // Reduced before it was sent: one summary call, long text cut and tool output cleared.
    expect(model.calls).toHaveLength(3)
    const summaryCall = promptOf(model.calls[1])
    expect(summaryCall).toContain("more characters cut]")
    expect(summaryCall).not.toContain("q".repeat(2_001))
    expect(summaryCall).toContain("[Old tool result content cleared]")
    expect(summaryCall).not.toContain("rrrrrrrrrr")
  })

  it("is off with compaction.auto = false: usage never compacts and an overflow is an error", async () => {
    const { model, events, ask } = await setup({
      compaction: { auto: false },
      turns: [[say.text("ALPHA answer"), say.usage({ input: 99_000 })], { throws: overflowError() }],
    })
    await ask("ALPHA question")
    const answer = await ask("BRAVO question")
    expect(model.calls).toHaveLength(2)
    expect(answer.info).toMatchObject({ error: { name: "ContextOverflowError" } })
    expect(answer.info.role === "assistant" && answer.info.error?.data.message).toMatch(
      /automatic compaction is off/,
    )
    expect(events.some((event) => event.type === "session.compacted")).toBe(false)
  })
})

describe("runtime.session.compact", () => {
  it("summarises on request without continuing, and the next prompt sees summary + tail + new message", async () => {
    const { runtime, session, model, events, ask, history } = await setup({
      compaction: { tailTurns: 1 },
      turns: [
        [say.toolCall("read", { path: "a.ts", size: 5_000 })],
        [say.text("ALPHA answer")],
        [say.text("BRAVO answer")],
        [say.text("SUMMARY-ONE")],
        [say.text("CHARLIE answer")],
        [say.text("SUMMARY-TWO")],
      ],
    })
    await ask("ALPHA question", [
      {
        type: "file",
        mime: "image/png",
        url: "data:image/png;base64,iVBORw0KGgo=",
        filename: "cat.png",
      } as never,
    ])
    await ask("BRAVO question")
    const summary = await runtime.session.compact({ sessionID: session.id })
    expect(summary.info).toMatchObject({ role: "assistant", summary: true, finish: "stop" })
    expect(textOf(summary)).toBe("SUMMARY-ONE")
    expect(model.calls).toHaveLength(4)
    expect(events.filter((event) => event.type === "session.compacted")).toHaveLength(1)

    // Compacting again with nothing new returns the summary without a model call.
    const again = await runtime.session.compact({ sessionID: session.id })
    expect(again.info.id).toBe(summary.info.id)
    expect(model.calls).toHaveLength(4)

    const summaryCall = promptOf(model.calls[3])
    expect(summaryCall).toContain("[Attached image/png: cat.png]")
    expect(summaryCall).not.toContain("iVBORw0KGgo")
    expect(summaryCall).toContain("[3000 more characters cut]")
    expect(summaryCall).not.toContain("r".repeat(2_001))
    expect(summaryCall).not.toContain("BRAVO question")

    const stored = await history()
    expect(stored.at(-1)!.info.id).toBe(summary.info.id)
    const request = stored.at(-2)!
    expect(compactionOf(request)).toMatchObject({ auto: false })
    expect(compactionOf(request)).toMatchObject({
      tailStartID: stored.find((message) => textOf(message) === "BRAVO question")!.info.id,
    })

    await ask("CHARLIE question")
    const next = promptOf(model.calls[4])
    expect(next).toContain("SUMMARY-ONE")
    expect(next).toContain("BRAVO question")
    expect(next).toContain("CHARLIE question")
    expect(next).not.toContain("ALPHA")

    // A second compaction updates the first summary instead of starting over.
    await runtime.session.compact({ sessionID: session.id })
    const update = promptOf(model.calls[5])
    expect(update).toContain("SUMMARY-ONE")
    expect(update).toContain("BRAVO question")
    expect(update).toContain("previous summary")
    expect(update).not.toContain("ALPHA")
  })

  it("waits for a running loop to finish before compacting", async () => {
    const { runtime, session, model, ask } = await setup({
      turns: [[say.delay(20), say.text("ALPHA answer")], [say.text("SUMMARY-ONE")]],
    })
    const busy = new Promise<void>((resolve) =>
      runtime.events.on("session.status", (event) => {
        if (event.properties.status.type === "busy") resolve()
      }),
    )
    const running = ask("ALPHA question")
    await busy
    const compacted = runtime.session.compact({ sessionID: session.id })
    expect(textOf(await running)).toBe("ALPHA answer")
    expect(textOf(await compacted)).toBe("SUMMARY-ONE")
    expect(model.calls).toHaveLength(2)
  })

  it("summarises with the model asked for, or the compaction agent's own", async () => {
    const small = scriptedModel([[say.text("SMALL-SUMMARY")], [say.text("AGENT-SUMMARY")]])
    const smallRef = { providerID: "scripted", modelID: "scripted-small" }
    const first = await setup({ small, turns: [[say.text("ALPHA answer")]] })
    await first.ask("ALPHA question")
    const summary = await first.runtime.session.compact({ sessionID: first.session.id, model: smallRef })
    expect(summary.info).toMatchObject({ modelID: "scripted-small", summary: true })
    expect(textOf(summary)).toBe("SMALL-SUMMARY")
    expect(first.model.calls).toHaveLength(1)

    const second = await setup({
      small,
      agents: { compaction: { model: smallRef } },
      turns: [[say.text("ALPHA answer")], [say.text("BRAVO answer")], [say.text("MAIN-SUMMARY")]],
    })
    await second.ask("ALPHA question")
    const own = await second.runtime.session.compact({ sessionID: second.session.id })
    expect(own.info).toMatchObject({ modelID: "scripted-small", agent: "compaction" })
    expect(textOf(own)).toBe("AGENT-SUMMARY")
    expect(second.model.calls).toHaveLength(1)
    // A model asked for beats the agent's; the next turn still runs on the session's model.
    await second.ask("BRAVO question")
    const main = { providerID: "scripted", modelID: "scripted-model" }
    const explicit = await second.runtime.session.compact({ sessionID: second.session.id, model: main })
    expect(textOf(explicit)).toBe("MAIN-SUMMARY")
    expect(second.model.calls).toHaveLength(3)
  })

  it("rejects a session with nothing to compact and an unknown model", async () => {
    const { runtime, session } = await setup({ turns: [] })
    await expect(runtime.session.compact({ sessionID: session.id })).rejects.toMatchObject({
      name: "NoUserMessageError",
    })
    await expect(
      runtime.session.compact({ sessionID: session.id, model: { providerID: "nope", modelID: "nope" } }),
    ).rejects.toMatchObject({ name: "UnknownModelError" })
  })
})

describe("prune", () => {
  // Each turn reads a 40,000-character file (10,000 estimated tokens) and answers.
  const reader: Turn = (call) =>
    call.prompt.at(-1)?.role === "tool"
      ? [say.text("read it")]
      : [say.toolCall("read", { path: "f.ts", size: 40_000 })]

  async function nineTurns(prune: boolean) {
    const context = await setup({ compaction: { prune }, model: scriptedModel([], { fallback: reader }) })
    for (let turn = 0; turn < 9; turn++) await context.ask(`question ${turn}`)
    return context
  }

  const clearedOutputs = (stored: MessageV2.WithParts[]) =>
    stored.flatMap((message) =>
      message.parts.filter(
        (part) => part.type === "tool" && part.state.status === "completed" && part.state.time.compacted,
      ),
    )

  it("clears old tool outputs after a loop when on, keeping them in storage", async () => {
    const { history, ask, model } = await nineTurns(true)
    const cleared = clearedOutputs(await history())
    expect(cleared).toHaveLength(3)
    for (const part of cleared)
      expect(part.type === "tool" && part.state.status === "completed" && part.state.output).toHaveLength(
        40_000,
      )
    await ask("question 9")
    const prompt = promptOf(model.calls.at(-2))
    expect(prompt.split("[Old tool result content cleared]")).toHaveLength(4)
  })

  it("leaves history alone when off (the default)", async () => {
    const { history } = await nineTurns(false)
    expect(clearedOutputs(await history())).toHaveLength(0)
  })
})
