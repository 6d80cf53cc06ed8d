import { describe, expect, it } from "vitest"
import { MessageV2, NamedError, NotFoundError } from "../../src/index.js"
import { createBuilders } from "../../src/testing/index.js"

const build = createBuilders()

describe("MessageV2 errors", () => {
  const cases = [
    new MessageV2.AuthError({ providerID: "anthropic", message: "bad key" }),
    new MessageV2.APIError({ message: "overloaded", statusCode: 529, isRetryable: true }),
    new MessageV2.OutputLengthError({}),
    new MessageV2.AbortedError({ message: "aborted" }),
    new MessageV2.ContextOverflowError({ message: "prompt is too long" }),
    new MessageV2.UnknownError({ message: "???" }),
  ]

  it("serialise to { name, data } that the assistant error schema accepts", () => {
    for (const error of cases) {
      const object = error.toObject()
      expect(object.name).toBe(error.constructor.name)
      expect(MessageV2.AssistantError.parse(object)).toEqual(object)
      expect(error).toBeInstanceOf(Error)
      expect(error).toBeInstanceOf(NamedError)
    }
  })

  it("recognise their own instances only", () => {
    const aborted = new MessageV2.AbortedError({ message: "stop" })
    expect(MessageV2.AbortedError.isInstance(aborted)).toBe(true)
    expect(MessageV2.APIError.isInstance(aborted)).toBe(false)
    expect(MessageV2.AbortedError.isInstance(new Error("stop"))).toBe(false)
    expect(MessageV2.AbortedError.isInstance({ name: "AbortedError" })).toBe(false)
    expect(MessageV2.AbortedError.isInstance(undefined)).toBe(false)
  })

  it("recognise instances made by another copy of the package", () => {
    // A second copy has its own classes but shares the global symbol registry.
    const foreign = Object.assign(new Error("gone"), {
      name: "NotFoundError",
      data: { id: "ses_x", message: "gone" },
      [Symbol.for("agentloop.named-error")]: true,
    })
    expect(NotFoundError.isInstance(foreign)).toBe(true)
  })

  it("use the data message as the error message and keep the cause", () => {
    const cause = new Error("socket hang up")
    const error = new MessageV2.APIError({ message: "connection reset", isRetryable: true }, { cause })
    expect(error.message).toBe("connection reset")
    expect(error.name).toBe("APIError")
    expect(error.cause).toBe(cause)
  })
})

describe("MessageV2 schemas", () => {
  const session = build.session()
  const user = build.user(session.id)

  it("accept every part type and reject an unknown one", () => {
    for (const part of build.everyPart(session.id, user.id)) expect(MessageV2.Part.parse(part)).toEqual(part)
    const unknown = { ...build.text(session.id, user.id), type: "hologram" }
    expect(MessageV2.Part.safeParse(unknown).success).toBe(false)
  })

  it("require the fields each tool state needs", () => {
    const start = { start: 1 }
    expect(MessageV2.ToolState.safeParse({ status: "running", input: {}, time: start }).success).toBe(true)
    expect(
      MessageV2.ToolState.safeParse({ status: "completed", input: {}, output: "x", time: start }).success,
    ).toBe(false)
    expect(
      MessageV2.ToolState.safeParse({ status: "error", input: {}, time: { start: 1, end: 2 } }).success,
    ).toBe(false)
  })

  it("tell user and assistant messages apart by role", () => {
    const assistant = build.assistant(session.id, user.id, {
      error: new MessageV2.AbortedError({ message: "cancelled" }).toObject(),
    })
    const parsed = MessageV2.WithParts.parse({ info: assistant, parts: [] })
    expect(parsed.info.role).toBe("assistant")
    expect(MessageV2.Info.safeParse({ ...user, role: "system" }).success).toBe(false)
    expect(MessageV2.User.safeParse({ ...user, model: { providerID: "x" } }).success).toBe(false)
  })

  it("reject IDs of the wrong kind", () => {
    const part = { ...build.text(session.id, user.id), messageID: session.id }
    const result = MessageV2.Part.safeParse(part)
    expect(result.success).toBe(false)
    expect(result.error?.issues[0]?.path).toEqual(["messageID"])
  })
})
