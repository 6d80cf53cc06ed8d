import { convertToModelMessages } from "ai"
import { describe, expect, it } from "vitest"
import type { Assistant, WithParts } from "../../src/message/info.js"
import type { FilePart, Part, ToolState } from "../../src/message/part.js"
import {
  COMPACTION_QUESTION,
  subtaskNote,
  type TargetModel,
  toModelMessages,
} from "../../src/message/to-model-messages.js"
import { CLEARED_OUTPUT, INTERRUPTED_OUTPUT } from "../../src/message/tool-ui-part.js"
import { createBuilders } from "../../src/testing/builders.js"

const build = createBuilders()
const session = build.session()
const model: TargetModel = { providerID: "test", id: "test-model", capabilities: { attachment: false } }
const PNG = "data:image/png;base64,iVBORw0KGgo="

function user(parts: (messageID: string) => Part[]): WithParts {
  const info = build.user(session.id)
  return { info, parts: parts(info.id) }
}

function assistant(parts: (messageID: string) => Part[], overrides: Partial<Assistant> = {}): WithParts {
  const info = build.assistant(session.id, build.ids.ascending("message"), overrides)
  return { info, parts: parts(info.id) }
}

function ids(messageID: string) {
  return { id: build.ids.ascending("part"), sessionID: session.id, messageID }
}

function text(messageID: string, body: string, fields: Partial<Extract<Part, { type: "text" }>> = {}): Part {
  return { ...ids(messageID), type: "text", text: body, ...fields }
}

function file(messageID: string, mime: string, url: string, filename?: string): FilePart {
  return { ...ids(messageID), type: "file", mime, url, filename }
}

function tool(messageID: string, callID: string, state: ToolState, metadata?: Record<string, unknown>): Part {
  return { ...ids(messageID), type: "tool", callID, tool: "read", state, metadata }
}

function stepStart(messageID: string): Part {
  return { ...ids(messageID), type: "step-start" }
}

const completed = (output: string, more: Partial<Extract<ToolState, { status: "completed" }>> = {}) =>
  ({
    status: "completed",
    input: { path: "a.ts" },
    output,
    title: "a.ts",
    metadata: {},
    time: { start: 1, end: 2 },
    ...more,
  }) satisfies ToolState

const call = (toolCallId: string, input: unknown = { path: "a.ts" }) => ({
  type: "tool-call",
  toolCallId,
  toolName: "read",
  input,
})

const result = (toolCallId: string, output: unknown) => ({
  type: "tool-result",
  toolCallId,
  toolName: "read",
  output,
})

// ai 6 passes a file's URL through as a string, ai 7 wraps it as tagged URL data. That format is
// the SDK's, not one of our rules, so the expectation asks the installed SDK for it.
async function sdkFileData(url: string): Promise<unknown> {
  const [message] = await convertToModelMessages([
    { role: "user", parts: [{ type: "file", url, mediaType: "image/png" }] },
  ])
  if (message?.role !== "user" || typeof message.content === "string") throw new Error("unexpected shape")
  const part = message.content[0]
  if (part?.type !== "file") throw new Error("unexpected shape")
  return part.data
}

describe("MessageV2.toModelMessages: user messages", () => {
  it("drops ignored text and keeps synthetic text", async () => {
    const history = [
      user((m) => [
        text(m, "hello"),
        text(m, "not for the model", { ignored: true }),
        text(m, "added by the prompt", { synthetic: true }),
      ]),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "hello" },
          { type: "text", text: "added by the prompt" },
        ],
      },
    ])
  })

  it("skips text/plain and directory files, whose content is already inlined, and keeps an image", async () => {
    const history = [
      user((m) => [
        text(m, "look"),
        file(m, "text/plain", "file:///tmp/project/a.ts", "a.ts"),
        file(m, "application/x-directory", "file:///tmp/project/src", "src"),
        file(m, "image/png", PNG, "shot.png"),
      ]),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "file", mediaType: "image/png", filename: "shot.png", data: await sdkFileData(PNG) },
        ],
      },
    ])
  })

  it("asks what was done for a compaction part and explains a subtask part", async () => {
    const subtask = {
      type: "subtask" as const,
      prompt: "look around",
      description: "explore the repo",
      agent: "explore",
    }
    const history = [
      user((m) => [{ ...ids(m), type: "compaction", auto: true }]),
      user((m) => [{ ...ids(m), ...subtask }]),
    ]
    const note = subtaskNote({ ...ids("msg_x"), ...subtask })
    expect(note).toContain("explore sub-agent")
    expect(await toModelMessages(history, model)).toEqual([
      { role: "user", content: [{ type: "text", text: COMPACTION_QUESTION }] },
      { role: "user", content: [{ type: "text", text: note }] },
    ])
    expect(COMPACTION_QUESTION).toBe("What did we do so far?")
  })

  it("leaves out parts that are not for the model, files without a URL, and messages left empty", async () => {
    const history = [
      user((m) => [
        text(m, "hidden", { ignored: true }),
        file(m, "text/plain", "file:///a.ts"),
        file(m, "image/png", "shot.png"),
      ]),
      user((m) => [text(m, "@explore go"), { ...ids(m), type: "agent", name: "explore" }]),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "user", content: [{ type: "text", text: "@explore go" }] },
    ])
  })
})

describe("MessageV2.toModelMessages: assistant text and reasoning", () => {
  const turn = (overrides: Partial<Assistant> = {}) =>
    assistant(
      (m) => [
        stepStart(m),
        {
          ...ids(m),
          type: "reasoning",
          text: "thinking",
          time: { start: 1, end: 2 },
          metadata: { anthropic: { signature: "sig" } },
        },
        text(m, "answer", { metadata: { openai: { itemId: "msg_1" } } }),
      ],
      overrides,
    )

  it("replays reasoning and provider metadata to the model that produced them", async () => {
    expect(await toModelMessages([turn()], model)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "thinking", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "text", text: "answer", providerOptions: { openai: { itemId: "msg_1" } } },
        ],
      },
    ])
  })

  it("sends another model's reasoning as plain text, without provider metadata", async () => {
    const history = [turn({ providerID: "other", modelID: "other-model" })]
    expect(await toModelMessages(history, model)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "thinking" },
          { type: "text", text: "answer" },
        ],
      },
    ])
    // Same provider, another model: still another model.
    const sibling = await toModelMessages([turn({ modelID: "test-model-2" })], model)
    expect(sibling[0]?.content).toEqual([
      { type: "text", text: "thinking" },
      { type: "text", text: "answer" },
    ])
  })

  it("keeps only the provider-keyed JSON objects of part metadata", async () => {
    const history = [
      assistant((m) => [
        text(m, "hi", {
          metadata: {
            k: 1,
            anthropic: { cache: "x", dropped: undefined, list: [1, Number.NaN] },
            flag: true,
          },
        }),
      ]),
    ]
    const [message] = await toModelMessages(history, model)
    expect(message).toStrictEqual({
      role: "assistant",
      content: [
        { type: "text", text: "hi", providerOptions: { anthropic: { cache: "x", list: [1, null] } } },
      ],
    })
  })

  it("does not send step-finish, snapshot, patch, agent or retry parts, nor empty text", async () => {
    const history = [
      assistant((m) => [
        stepStart(m),
        text(m, ""),
        text(m, "done"),
        ...build
          .everyPart(session.id, m)
          .filter((part) => ["step-finish", "snapshot", "patch", "agent", "retry"].includes(part.type)),
      ]),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ])
  })
})

describe("MessageV2.toModelMessages: tool parts", () => {
  it("sends a completed call with its output", async () => {
    const history = [assistant((m) => [stepStart(m), tool(m, "call_1", completed("contents"))])]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "assistant", content: [call("call_1")] },
      { role: "tool", content: [result("call_1", { type: "text", value: "contents" })] },
    ])
  })

  it("replaces an output cleared by compaction with a placeholder", async () => {
    const state = completed("a very long output", {
      time: { start: 1, end: 2, compacted: 3 },
      attachments: [file("msg_x", "image/png", PNG)],
    })
    const history = [assistant((m) => [tool(m, "call_1", state)])]
    const withFiles = { ...model, capabilities: { attachment: true } }
    expect(await toModelMessages(history, withFiles)).toEqual([
      { role: "assistant", content: [call("call_1")] },
      { role: "tool", content: [result("call_1", { type: "text", value: CLEARED_OUTPUT })] },
    ])
    expect(CLEARED_OUTPUT).toBe("[Old tool result content cleared]")
  })

  it("sends a failed call as an error result", async () => {
    const state: ToolState = {
      status: "error",
      input: { path: "a.ts" },
      error: "boom",
      time: { start: 1, end: 2 },
    }
    const history = [assistant((m) => [tool(m, "call_1", state)])]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "assistant", content: [call("call_1")] },
      { role: "tool", content: [result("call_1", { type: "error-text", value: "boom" })] },
    ])
  })

  it("closes pending and running calls with an interrupted result, so no call dangles", async () => {
    const history = [
      assistant((m) => [
        tool(m, "call_1", { status: "pending", input: {}, raw: '{"pa' }),
        tool(m, "call_2", { status: "running", input: { path: "b.ts" }, time: { start: 1 } }),
      ]),
    ]
    const interrupted = { type: "error-text", value: INTERRUPTED_OUTPUT }
    expect(await toModelMessages(history, model)).toEqual([
      { role: "assistant", content: [call("call_1", {}), call("call_2", { path: "b.ts" })] },
      { role: "tool", content: [result("call_1", interrupted), result("call_2", interrupted)] },
    ])
    expect(INTERRUPTED_OUTPUT).toBe("[Tool execution was interrupted]")
  })

  it("sends an interrupted call's partial output with its error", async () => {
    const metadata = { output: "compiling 1/3\ncompiling 2/3", interrupted: true }
    const history = [
      assistant((m) => [
        tool(m, "call_1", {
          status: "error",
          input: {},
          error: "Tool execution aborted",
          metadata,
          time: { start: 1, end: 2 },
        }),
        tool(m, "call_2", { status: "running", input: {}, metadata: { output: "half" }, time: { start: 1 } }),
      ]),
    ]
    const messages = await toModelMessages(history, model)
    expect(messages[1]).toEqual({
      role: "tool",
      content: [
        result("call_1", {
          type: "error-text",
          value: "Tool execution aborted\n\nOutput before the interruption:\ncompiling 1/3\ncompiling 2/3",
        }),
        result("call_2", {
          type: "error-text",
          value: `${INTERRUPTED_OUTPUT}\n\nOutput before the interruption:\nhalf`,
        }),
      ],
    })
  })

  it("splits a message at its steps: the call, its result, then the text after it", async () => {
    const history = [
      user((m) => [text(m, "read a.ts")]),
      assistant((m) => [
        stepStart(m),
        text(m, "Reading it."),
        tool(m, "call_1", completed("contents")),
        stepStart(m),
        text(m, "It holds contents."),
      ]),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "user", content: [{ type: "text", text: "read a.ts" }] },
      { role: "assistant", content: [{ type: "text", text: "Reading it." }, call("call_1")] },
      { role: "tool", content: [result("call_1", { type: "text", value: "contents" })] },
      { role: "assistant", content: [{ type: "text", text: "It holds contents." }] },
    ])
  })

  it("passes call metadata through and keeps provider-executed results in the assistant message", async () => {
    const metadata = { providerExecuted: true, anthropic: { serverToolUse: true } }
    const history = [assistant((m) => [tool(m, "srv_1", completed("found"), metadata)])]
    const providerOptions = { anthropic: { serverToolUse: true } }
    expect(await toModelMessages(history, model)).toEqual([
      {
        role: "assistant",
        content: [
          { ...call("srv_1"), providerExecuted: true, providerOptions },
          { ...result("srv_1", { type: "text", value: "found" }), providerOptions },
        ],
      },
    ])
    // Another model gets the call without the provider's data.
    const other = await toModelMessages(history, { ...model, id: "other-model" })
    expect(other).toEqual([
      {
        role: "assistant",
        content: [
          { ...call("srv_1"), providerExecuted: true },
          result("srv_1", { type: "text", value: "found" }),
        ],
      },
    ])
  })
})

describe("MessageV2.toModelMessages: attachments", () => {
  const history = () => [
    assistant((m) => [
      tool(
        m,
        "call_0",
        completed("read it", {
          attachments: [
            file(m, "image/png", PNG, "shot.png"),
            file(m, "text/plain", "data:text/plain,hi%20there"),
            file(m, "application/pdf", "https://example.com/a.pdf"),
            file(m, "image/png", "file:///tmp/project/local.png"),
          ],
        }),
      ),
    ]),
    // A second call with the same ID, as providers that number calls per turn produce.
    assistant((m) => [tool(m, "call_0", completed("plain"))]),
  ]

  it("sends attachments as file content of the result when the model accepts files", async () => {
    const withFiles = { ...model, capabilities: { attachment: true } }
    expect(await toModelMessages(history(), withFiles)).toEqual([
      { role: "assistant", content: [call("call_0")] },
      {
        role: "tool",
        content: [
          result("call_0", {
            type: "content",
            value: [
              { type: "text", text: "read it" },
              { type: "file-data", data: "iVBORw0KGgo=", mediaType: "image/png", filename: "shot.png" },
              {
                type: "file-data",
                data: Buffer.from("hi there").toString("base64"),
                mediaType: "text/plain",
              },
              { type: "file-url", url: "https://example.com/a.pdf", mediaType: "application/pdf" },
            ],
          }),
        ],
      },
      { role: "assistant", content: [call("call_0")] },
      { role: "tool", content: [result("call_0", { type: "text", value: "plain" })] },
    ])
  })

  it("drops attachments when the model does not accept files", async () => {
    for (const capabilities of [{ attachment: false }, undefined]) {
      expect(await toModelMessages(history(), { ...model, capabilities })).toEqual([
        { role: "assistant", content: [call("call_0")] },
        { role: "tool", content: [result("call_0", { type: "text", value: "read it" })] },
        { role: "assistant", content: [call("call_0")] },
        { role: "tool", content: [result("call_0", { type: "text", value: "plain" })] },
      ])
    }
  })
})

describe("MessageV2.toModelMessages: failed and aborted turns", () => {
  const question = () => user((m) => [text(m, "go")])

  it("drops a message that failed with an error other than an abort", async () => {
    const failed = assistant((m) => [stepStart(m), text(m, "partial answer")], {
      error: { name: "APIError", data: { message: "overloaded", isRetryable: true } },
    })
    expect(await toModelMessages([question(), failed], model)).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
    ])
  })

  it("keeps an aborted message that said or did something", async () => {
    const aborted = { name: "AbortedError" as const, data: { message: "cancelled" } }
    const history = [
      question(),
      assistant((m) => [stepStart(m), text(m, "halfway")], { error: aborted }),
      assistant(
        (m) => [stepStart(m), tool(m, "call_1", { status: "running", input: {}, time: { start: 1 } })],
        {
          error: aborted,
        },
      ),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "text", text: "halfway" }] },
      { role: "assistant", content: [call("call_1", {})] },
      { role: "tool", content: [result("call_1", { type: "error-text", value: INTERRUPTED_OUTPUT })] },
    ])
  })

  it("drops an aborted message without content", async () => {
    const aborted = { name: "AbortedError" as const, data: { message: "cancelled" } }
    const history = [
      question(),
      assistant((m) => [stepStart(m), text(m, "  ")], { error: aborted }),
      assistant((m) => [stepStart(m)], { error: aborted }),
    ]
    expect(await toModelMessages(history, model)).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
    ])
  })
})
