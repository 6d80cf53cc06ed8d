import { validateUIMessages } from "ai"
import { describe, expect, it } from "vitest"
import { MessageV2 } from "../../src/index.js"
import type { Assistant, WithParts } from "../../src/message/info.js"
import type { Part, ToolPart } from "../../src/message/part.js"
import { createBuilders } from "../../src/testing/builders.js"

const build = createBuilders()
const session = build.session()

function user(parts: (messageID: string) => Part[]): WithParts {
  const info = build.user(session.id, { time: { created: 1 } })
  return { info, parts: parts(info.id) }
}

function answer(parentID: string, parts: (messageID: string) => Part[], overrides: Partial<Assistant> = {}) {
  const info = build.assistant(session.id, parentID, overrides)
  return { info, parts: parts(info.id) }
}

const base = (messageID: string) => ({ id: build.ids.ascending("part"), sessionID: session.id, messageID })
const tokens = (n: number) => ({ input: n, output: n, reasoning: 0, cache: { read: 0, write: 0 } })

/**
 * The messages the AI SDK's own validator accepts, nothing stripped but a tool part's `title`:
 * in both majors' types and set by their stream reader, but unknown to ai 6's validator.
 */
async function expectValid(messages: MessageV2.UIMessage[]) {
  const withoutTitles = (list: unknown) =>
    JSON.parse(JSON.stringify(list, (key, value) => (key === "title" ? undefined : value)))
  expect(withoutTitles(await validateUIMessages({ messages }))).toEqual(withoutTitles(messages))
}

describe("MessageV2.toUIMessages", () => {
  it("maps every part kind and tool state, in a form validateUIMessages accepts", async () => {
    const question = user((id) => [build.text(session.id, id, "look")])
    const reply = answer(question.info.id, (id) => build.everyPart(session.id, id))
    const ui = MessageV2.toUIMessages([question, reply])
    expect(ui.map((message) => message.role)).toEqual(["user", "assistant"])
    expect(ui[1]!.parts).toEqual([
      // the synthetic text is left out
      { type: "reasoning", id: expect.any(String), text: "thinking", state: "done" },
      { type: "file", mediaType: "text/plain", url: "file:///tmp/project/src/a.ts", filename: "a.ts" },
      { type: "file", mediaType: "text/plain", url: "file:///x" },
      { type: "file", mediaType: "text/plain", url: "mcp://x" },
      { type: "tool-bash", toolCallId: "call_1", state: "input-streaming", input: {} },
      {
        type: "tool-bash",
        toolCallId: "call_2",
        state: "input-available",
        input: { command: "ls" },
        title: "ls",
        toolMetadata: { pid: 1 },
      },
      {
        type: "tool-read",
        toolCallId: "call_3",
        state: "output-available",
        input: { path: "a.ts" },
        output: "contents",
        title: "a.ts",
        toolMetadata: { lines: 1 },
      },
      // the completed call's attachment follows it
      { type: "file", mediaType: "text/plain", url: "file:///tmp/project/src/a.ts", filename: "a.ts" },
      {
        type: "tool-bash",
        toolCallId: "call_4",
        state: "output-error",
        input: {},
        errorText: "boom",
        toolMetadata: { interrupted: true },
      },
      { type: "step-start" },
      // step-finish and snapshot are left out
      {
        type: "data-patch",
        id: expect.any(String),
        data: { hash: "abc123", files: ["/tmp/project/src/a.ts"] },
      },
      { type: "data-agent", id: expect.any(String), data: { name: "explore" } },
      {
        type: "data-subtask",
        id: expect.any(String),
        data: {
          description: "explore",
          prompt: "look around",
          agent: "explore",
          model: { providerID: "test", modelID: "small" },
        },
      },
      { type: "data-retry", id: expect.any(String), data: { attempt: 2, message: "overloaded" } },
      { type: "data-compaction", id: expect.any(String), data: { auto: true, overflow: true } },
    ])
    await expectValid(ui)
  })

  it("gives users' messages their text and files, and their agent and model as metadata", async () => {
    const message = user((id) => [
      build.text(session.id, id, "fix @a.ts"),
      { ...base(id), type: "file", mime: "image/png", url: "data:image/png;base64,AA==", filename: "a.png" },
    ])
    const [ui] = MessageV2.toUIMessages([message])
    expect(ui).toEqual({
      id: message.info.id,
      role: "user",
      parts: [
        { type: "text", text: "fix @a.ts", state: "done" },
        { type: "file", mediaType: "image/png", url: "data:image/png;base64,AA==", filename: "a.png" },
      ],
      metadata: { agent: "build", providerID: "test", modelID: "test-model", time: { created: 1 } },
    })
    await expectValid([ui!])
  })

  it("leaves out synthetic and ignored text, and a user message left with nothing", () => {
    const notes = user((id) => [
      { ...base(id), type: "text", text: "Continue", synthetic: true },
      { ...base(id), type: "text", text: "not sent", ignored: true },
    ])
    const kept = user((id) => [
      { ...base(id), type: "text", text: "read this", ignored: false },
      { ...base(id), type: "text", text: "<file contents>", synthetic: true },
    ])
    const ui = MessageV2.toUIMessages([notes, kept])
    expect(ui).toHaveLength(1)
    expect(ui[0]!.parts).toEqual([{ type: "text", text: "read this", state: "done" }])
  })

  it("makes one UI message of a turn's answers, a step each, with summed cost and tokens", async () => {
    const question = user((id) => [build.text(session.id, id, "go")])
    const first = answer(
      question.info.id,
      (id) => [
        { ...base(id), type: "step-start" },
        {
          ...base(id),
          type: "tool",
          callID: "c1",
          tool: "read",
          state: {
            status: "completed",
            input: { path: "a" },
            output: "A",
            title: "a",
            metadata: {},
            time: { start: 1, end: 2 },
          },
        },
      ],
      { cost: 0.5, tokens: tokens(10), finish: "tool-calls", time: { created: 10, completed: 11 } },
    )
    const second = answer(
      question.info.id,
      (id) => [{ ...base(id), type: "step-start" }, build.text(session.id, id, "Done")],
      { cost: 0.25, tokens: tokens(5), finish: "stop", time: { created: 12, completed: 13 } },
    )
    const ui = MessageV2.toUIMessages([question, first, second])
    expect(ui).toHaveLength(2)
    expect(ui[1]).toMatchObject({
      id: first.info.id,
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", state: "output-available", output: "A" },
        { type: "step-start" },
        { type: "text", text: "Done" },
      ],
      metadata: {
        agent: "build",
        providerID: "test",
        modelID: "test-model",
        time: { created: 10, completed: 13 },
        cost: 0.75,
        tokens: tokens(15),
        finish: "stop",
      },
    })
    await expectValid(ui)
  })

  it("keeps an answer's error, and marks a compaction's summary", () => {
    const question = user((id) => [build.text(session.id, id, "go")])
    const error = { name: "APIError" as const, data: { message: "down", isRetryable: false } }
    const failed = answer(question.info.id, (id) => [build.text(session.id, id, "Part")], { error })
    const request = user((id) => [{ ...base(id), type: "compaction", auto: false }])
    const summary = answer(request.info.id, (id) => [build.text(session.id, id, "Summary")], {
      summary: true,
    })
    const ui = MessageV2.toUIMessages([question, failed, request, summary])
    expect(ui.map((message) => message.metadata?.error?.name ?? message.metadata?.summary)).toEqual([
      undefined,
      "APIError",
      undefined,
      true,
    ])
    expect(ui[2]!.parts).toEqual([{ type: "data-compaction", id: expect.any(String), data: { auto: false } }])
  })

  it("starts a new UI message for answers to another user message", () => {
    const one = user((id) => [build.text(session.id, id, "one")])
    const two = user((id) => [build.text(session.id, id, "two")])
    const a = answer(one.info.id, (id) => [build.text(session.id, id, "A")])
    const b = answer(two.info.id, (id) => [build.text(session.id, id, "B")])
    expect(MessageV2.toUIMessages([one, a, two, b]).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ])
  })

  it("shows each tool state as the AI SDK names it", () => {
    const states: [ToolPart["state"], string][] = [
      [{ status: "pending", input: {}, raw: "" }, "input-streaming"],
      [{ status: "running", input: {}, time: { start: 1 } }, "input-available"],
      [
        { status: "completed", input: {}, output: "", title: "", metadata: {}, time: { start: 1, end: 2 } },
        "output-available",
      ],
      [{ status: "error", input: {}, error: "x", time: { start: 1, end: 2 } }, "output-error"],
    ]
    for (const [state, expected] of states) {
      const reply = answer("msg_0", (id) => [{ ...base(id), type: "tool", callID: "c", tool: "t", state }])
      expect(MessageV2.toUIMessages([reply])[0]!.parts[0]).toMatchObject({ type: "tool-t", state: expected })
    }
  })
})
