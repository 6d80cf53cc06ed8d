import { parseJsonEventStream, readUIMessageStream, type UIMessageChunk, uiMessageChunkSchema } from "ai"
import { describe, expect, it } from "vitest"
import { Agent, type MessageV2 } from "../../src/index.js"
import { chatHandler } from "../../src/server/chat.js"
import { createTestRuntime, say } from "../../src/testing/index.js"
import { unknownSessionID } from "./helpers.js"

const userMessage = (text: string, id = "u1") => ({ id, role: "user", parts: [{ type: "text", text }] })

function post(body: unknown, init: RequestInit = {}) {
  return new Request("http://localhost/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  })
}

async function setup(turns = [[say.text("Hello from the session")]]) {
  // The coding agents give the chat a second primary agent (plan) to switch to.
  const context = createTestRuntime({ turns, agents: Agent.codingAgents() })
  const session = await context.runtime.session.create()
  return { ...context, sessionID: session.id, chat: chatHandler(context.runtime) }
}

/** The response's SSE body as the UI message it builds, the way useChat reads it. */
async function finalMessage(response: Response) {
  const chunks = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk }, UIMessageChunk>({
      transform(result, controller) {
        if (result.success && result.value) controller.enqueue(result.value)
      },
    }),
  )
  let last: MessageV2.UIMessage | undefined
  for await (const message of readUIMessageStream<MessageV2.UIMessage>({ stream: chunks })) last = message
  return last
}

describe("chatHandler", () => {
  it("prompts the session with the last user message and streams the answer", async () => {
    const { runtime, sessionID, chat, model } = await setup()
    const messages = [
      userMessage("earlier", "u0"),
      { id: "a0", role: "assistant", parts: [{ type: "text", text: "old answer" }] },
      {
        id: "u1",
        role: "user",
        parts: [
          { type: "text", text: "what is in it?" },
          { type: "file", mediaType: "text/plain", url: "data:text/plain;base64,aGk=", filename: "a.txt" },
        ],
      },
    ]
    const response = await chat(post({ id: sessionID, messages, trigger: "submit-message" }))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
    const message = await finalMessage(response)
    expect(message?.parts.at(-1)).toMatchObject({ type: "text", text: "Hello from the session" })
    const stored = await runtime.session.messages(sessionID)
    expect(stored.map((entry) => entry.info.role)).toEqual(["user", "assistant"])
    expect(stored[0]!.parts).toMatchObject([
      { type: "text", text: "what is in it?" },
      { type: "file", mime: "text/plain", filename: "a.txt" },
    ])
    expect(message?.id).toBe(stored[1]!.info.id)
    expect(model.calls).toHaveLength(1)
  })

  it("takes the session from the route over the chat's id, and an agent from the body", async () => {
    const { runtime, sessionID, chat } = await setup()
    const response = await chat(
      post({ id: "chat-123", messages: [userMessage("hi")], agent: "plan" }),
      sessionID,
    )
    await finalMessage(response)
    const [stored] = await runtime.session.messages(sessionID)
    expect(stored?.info).toMatchObject({ role: "user", agent: "plan" })
  })

  it("answers 404 for an unknown session, before prompting", async () => {
    const { chat, model } = await setup()
    const response = await chat(post({ id: unknownSessionID, messages: [userMessage("hi")] }))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ name: "NotFoundError" })
    expect(model.calls).toHaveLength(0)
  })

  it.each([
    ["malformed JSON", "{"],
    ["no body fields", {}],
    ["no messages", { messages: [] }],
    ["a malformed session ID", { id: "nope", messages: [userMessage("hi")] }],
    ["messages the AI SDK rejects", { messages: [{ id: "u1", role: "user", parts: [{ type: "text" }] }] }],
    [
      "no user message",
      { messages: [{ id: "a1", role: "assistant", parts: [{ type: "text", text: "x" }] }] },
    ],
    ["a user message without text or file", { messages: [userMessage("   ")] }],
    ["a model that is not a reference", { messages: [userMessage("hi")], model: "gpt" }],
  ])("answers 400 InvalidInputError for %s", async (_, body) => {
    const { chat, sessionID, model } = await setup()
    const withSession = typeof body === "object" && !("id" in body) ? { id: sessionID, ...body } : body
    const response = await chat(post(withSession))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      name: "InvalidInputError",
      data: { message: expect.any(String), issues: expect.any(Array) },
    })
    expect(model.calls).toHaveLength(0)
  })
})
