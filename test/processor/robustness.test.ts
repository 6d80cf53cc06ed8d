import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { MemoryStorage, type MessageV2, type StorageWrite, Tool } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const tools = (message: MessageV2.WithParts) =>
  message.parts.filter((part): part is MessageV2.ToolPart => part.type === "tool")

describe("a tool whose result cannot be stored", () => {
  const cases: [string, () => Record<string, unknown>, RegExp][] = [
    ["a BigInt", () => ({ size: 10n }), /metadata\.size is a BigInt/],
    [
      "a circular object",
      () => {
        const node: Record<string, unknown> = { name: "root" }
        node.self = node
        return { node }
      },
      /metadata\.node\.self refers back to itself/,
    ],
    ["a function", () => ({ callback: () => 1 }), /metadata\.callback is a function/],
  ]
  for (const [what, metadata, message] of cases) {
    it(`ends as an error the model can read when its metadata holds ${what}, and the turn goes on`, async () => {
      const odd = Tool.define("odd", {
        description: "Returns odd metadata",
        parameters: z.object({}),
        execute: async () => ({ title: "odd", output: "fine", metadata: metadata() }),
      })
      const { runtime } = createTestRuntime({
        tools: [odd],
        turns: [[say.toolCall("odd", {})], [say.text("Noted.")]],
      })
      const session = await runtime.session.create()
      const answer = await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: "go" }],
      })

      expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
      const [part] = (await runtime.session.messages(session.id)).flatMap(tools)
      expect(part?.state.status).toBe("error")
      expect(part?.state.status === "error" && part.state.error).toMatch(message)
    })
  }
})

describe("a delta for a part the stream never started", () => {
  it("is dropped, and the text after it is kept", async () => {
    const { runtime } = createTestRuntime({
      turns: [
        [
          say.chunk({ type: "reasoning-delta", id: "ghost", delta: "lost thought" }),
          say.text("The answer is 42."),
        ],
      ],
    })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "q" }],
    })

    expect(answer.info.role === "assistant" && answer.info.error).toBeUndefined()
    expect(answer.parts.filter((part) => part.type === "text").map((part) => part.text)).toEqual([
      "The answer is 42.",
    ])
  })
})

describe("streamed text", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("is written at most once a second while it grows, so a crash loses at most that much", async () => {
    vi.useFakeTimers()
    const storage = new MemoryStorage()
    const texts: { messageID: string; text: string }[] = []
    const write = storage.write.bind(storage)
    storage.write = async (batch: readonly StorageWrite[]) => {
      for (const entry of batch)
        if (entry.type === "part.put" && entry.part.type === "text")
          texts.push({ messageID: entry.part.messageID, text: entry.part.text })
      return write(batch)
    }
    const { runtime } = createTestRuntime({
      storage,
      turns: [
        [
          say.chunk({ type: "text-start", id: "t" }),
          ...["one ", "two ", "three ", "four ", "five"].flatMap((delta) => [
            say.chunk({ type: "text-delta", id: "t", delta }),
            say.delay(400),
          ]),
          say.chunk({ type: "text-end", id: "t" }),
        ],
      ],
    })
    const session = await runtime.session.create()
    const answer = runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "count" }] })
    await vi.advanceTimersByTimeAsync(5_000)

    // Deltas at 0, 0.4, 0.8, 1.2 and 1.6 s, the end at 2 s: written at the start, a second
    // later and a second after that (each time by the timer, since no delta came due), and at
    // the end, which adds the end time.
    const { id } = (await answer).info
    expect(texts.filter((entry) => entry.messageID === id).map((entry) => entry.text)).toEqual([
      "",
      "one two three ",
      "one two three four five",
      "one two three four five",
    ])
  })
})
