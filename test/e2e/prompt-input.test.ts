import { describe, expect, it } from "vitest"
import { InvalidInputError, MessageV2 } from "../../src/index.js"
import { createTestRuntime, say } from "../../src/testing/index.js"

const isInvalid = (error: unknown) => InvalidInputError.isInstance(error)
const text = (value: string) => [{ type: "text" as const, text: value }]

describe("session.prompt refuses what would corrupt or hide history, writing nothing", () => {
  it("refuses a messageID that already exists", async () => {
    const { runtime, model } = createTestRuntime({
      turns: [[say.text("first answer"), say.usage({ input: 1_000, output: 100 })]],
    })
    const session = await runtime.session.create()
    const answer = await runtime.session.prompt({ sessionID: session.id, parts: text("hi") })
    const before = await runtime.session.messages(session.id)
    const { cost } = await runtime.session.get(session.id)
    const calls = model.calls.length

    await expect(
      runtime.session.prompt({ sessionID: session.id, messageID: answer.info.id, parts: text("overwrite") }),
    ).rejects.toSatisfy(isInvalid)
    expect(await runtime.session.messages(session.id)).toEqual(before)
    expect((await runtime.session.get(session.id)).cost).toBe(cost)
    expect(model.calls.length).toBe(calls)
  })

  it("refuses a messageID that sorts before the newest message", async () => {
    const { runtime, model } = createTestRuntime({ turns: [[say.text("first answer")]] })
    const session = await runtime.session.create()
    const early = await runtime.session.newMessageID(session.id)
    await runtime.session.prompt({ sessionID: session.id, parts: text("hi") })
    const before = await runtime.session.messages(session.id)

    const error = await runtime.session
      .prompt({ sessionID: session.id, messageID: early, parts: text("sneak in") })
      .catch((caught: unknown) => caught)
    expect(isInvalid(error)).toBe(true)
    expect((error as InvalidInputError).data.issues[0]?.path).toBe("messageID")
    expect(await runtime.session.messages(session.id)).toEqual(before)
    expect(model.calls.length).toBe(1)
  })

  it("takes a messageID that sorts after everything in the session", async () => {
    const { runtime } = createTestRuntime({ turns: [[say.text("one")], [say.text("two")]] })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: text("hi") })
    const next = await runtime.session.newMessageID(session.id)

    const answer = await runtime.session.prompt({
      sessionID: session.id,
      messageID: next,
      parts: text("again"),
    })
    expect(MessageV2.throwIfFailed(answer).info.parentID).toBe(next)
  })

  it("refuses the hidden agents and sub-agents as the agent of a prompt", async () => {
    const { runtime } = createTestRuntime()
    const session = await runtime.session.create()
    for (const agent of ["compaction", "title", "general"]) {
      await expect(
        runtime.session.prompt({ sessionID: session.id, agent, parts: text("hi") }),
      ).rejects.toSatisfy(isInvalid)
      await expect(
        runtime.session.prompt({
          sessionID: session.id,
          parts: [...text("hi"), { type: "agent", name: agent }],
        }),
      ).rejects.toSatisfy(isInvalid)
    }
    expect(await runtime.session.messages(session.id)).toEqual([])
  })
})

describe("session.cancel and session.status validate the session ID", () => {
  it("throws InvalidInputError for a value that is not a session ID", () => {
    const { runtime } = createTestRuntime()
    for (const bad of [42, {}, undefined, "msg_123"]) {
      expect(() => runtime.session.cancel(bad as unknown as string)).toThrow(InvalidInputError)
      expect(() => runtime.session.status(bad as unknown as string)).toThrow(InvalidInputError)
    }
  })
})
