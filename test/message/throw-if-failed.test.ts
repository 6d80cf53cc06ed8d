import { APICallError } from "ai"
import { describe, expect, it } from "vitest"
import { InvalidInputError, MessageV2 } from "../../src/index.js"
import { createBuilders, createTestRuntime, say } from "../../src/testing/index.js"

function unauthorized() {
  return new APICallError({
    message: "invalid x-api-key",
    statusCode: 401,
    url: "https://api.example.test/v1/messages",
    requestBodyValues: {},
    responseBody: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
    isRetryable: false,
  })
}

describe("the failed-turn contract", () => {
  it("resolves prompt with the failure stored on the assistant message", async () => {
    const { runtime } = createTestRuntime({ turns: [{ throws: unauthorized() }] })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Hi" }],
    })

    expect(answer.info).toMatchObject({ role: "assistant", error: { name: "AuthError" } })
    const [, stored] = await runtime.session.messages(session.id)
    expect(stored?.info).toMatchObject({ role: "assistant", error: { name: "AuthError" } })
    await runtime.close()
  })

  it("throws the stored failure as its named error through MessageV2.throwIfFailed", async () => {
    const { runtime } = createTestRuntime({ turns: [{ throws: unauthorized() }] })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Hi" }],
    })

    const thrown = (() => {
      try {
        MessageV2.throwIfFailed(answer)
      } catch (error) {
        return error
      }
    })()
    expect(MessageV2.AuthError.isInstance(thrown)).toBe(true)
    expect(thrown).toBeInstanceOf(Error)
    expect((thrown as MessageV2.AuthError).data).toEqual({
      providerID: "scripted",
      message: expect.any(String),
    })
    expect((thrown as Error).message).toBe((thrown as MessageV2.AuthError).data.message)
    await runtime.close()
  })

  it("returns a successful answer typed as an assistant message", async () => {
    const { runtime } = createTestRuntime({
      turns: [[say.text("Hello"), say.usage({ input: 100, output: 10 })]],
    })
    const session = await runtime.session.create()
    const answer = MessageV2.throwIfFailed(
      await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "Hi" }] }),
    )

    expect(answer.info.finish).toBe("stop")
    expect(answer.info.tokens.output).toBe(10)
    expect(answer.parts.some((part) => part.type === "text" && part.text === "Hello")).toBe(true)
    await runtime.close()
  })

  it("refuses a user message, as a noReply prompt returns", async () => {
    const { runtime } = createTestRuntime()
    const session = await runtime.session.create()
    const stored = await runtime.session.prompt({
      sessionID: session.id,
      noReply: true,
      parts: [{ type: "text", text: "Just a note" }],
    })

    expect(() => MessageV2.throwIfFailed(stored)).toThrow(InvalidInputError)
    await runtime.close()
  })

  it("rebuilds every stored error kind as its class", () => {
    const errors = [
      new MessageV2.AuthError({ providerID: "p", message: "no key" }),
      new MessageV2.APIError({ message: "bad", statusCode: 400, isRetryable: false }),
      new MessageV2.OutputLengthError({ message: "too long" }),
      new MessageV2.AbortedError({ message: "cancelled" }),
      new MessageV2.ContextOverflowError({ message: "full" }),
      new MessageV2.UnknownError({ message: "odd" }),
    ]
    for (const error of errors) {
      const message = assistantWith(error.toObject())
      expect(() => MessageV2.throwIfFailed(message)).toThrow(
        expect.objectContaining({ name: error.name, data: error.data }),
      )
    }
  })
})

function assistantWith(error: MessageV2.AssistantError): MessageV2.WithParts {
  const build = createBuilders()
  return { info: build.assistant("ses_1", "msg_0", { error }), parts: [] }
}
