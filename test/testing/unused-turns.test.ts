import { streamText } from "ai"
import { describe, expect, it } from "vitest"
import { createTestRuntime, ScriptedTurnsUnusedError, say, scriptedModel } from "../../src/testing/index.js"

describe("scripted turns never played", () => {
  it("are counted by model.remaining and listed by verify()", async () => {
    const { runtime, model, verify } = createTestRuntime({
      turns: [
        [say.text("Hello.")],
        [say.toolCall("todoread", {})],
        [say.text("A long answer that goes on and on past the point of usefulness")],
      ],
    })
    expect(model.remaining).toBe(3)
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    expect(model.remaining).toBe(2)
    let thrown: unknown
    try {
      verify()
    } catch (error) {
      thrown = error
    }
    expect(ScriptedTurnsUnusedError.isInstance(thrown)).toBe(true)
    expect((thrown as ScriptedTurnsUnusedError).data).toMatchObject({
      unused: [2, 3],
      played: 1,
      scripted: 3,
    })
    expect(String(thrown)).toBe(
      "ScriptedTurnsUnusedError: 2 of 3 scripted turns were never played:" +
        ' turn 2 [toolCall todoread], turn 3 [text "A long answer that goes on and on past t…"]',
    )
    await runtime.close()
  })

  it("pass verify() once every turn was played", async () => {
    const { runtime, verify } = createTestRuntime({ turns: [[say.text("Hello.")]] })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "hi" }] })
    expect(() => verify()).not.toThrow()
    await runtime.close()
  })

  it("describe turns that throw or are functions of the call", () => {
    const model = scriptedModel([{ throws: new Error("overloaded") }, () => [say.text("x")]])
    expect(() => model.verify()).toThrow(
      "2 of 2 scripted turns were never played: turn 1 [throws Error: overloaded], turn 2 [a function of the call]",
    )
  })

  it("are none when a fallback plays every call past the script", async () => {
    const model = scriptedModel([], { fallback: [say.text("Again.")] })
    await streamText({ model, prompt: "x" }).consumeStream()
    expect(model.remaining).toBe(0)
    expect(() => model.verify()).not.toThrow()
  })
})
