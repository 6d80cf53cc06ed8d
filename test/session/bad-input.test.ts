import { describe, expect, it } from "vitest"
import { InvalidInputError, MemoryStorage } from "../../src/index.js"
import { createBuilders } from "../../src/testing/index.js"
import { recordingRuntime, rejection } from "./helpers.js"

/** Asserts an InvalidInputError whose issues name exactly `paths`. */
function expectInvalid(error: Error, paths: string[]) {
  expect(InvalidInputError.isInstance(error), String(error)).toBe(true)
  expect((error as InvalidInputError).data.issues.map((issue) => issue.path)).toEqual(paths)
}

describe("the session service refuses malformed arguments with a named error, writing nothing", () => {
  it("session.get with an ID that is not a string, whatever it is", async () => {
    const { runtime } = recordingRuntime()
    const circular: Record<string, unknown> = {}
    circular.self = circular
    for (const value of [10n, circular, Symbol("id"), null]) {
      expectInvalid(await rejection(runtime.session.get(value as never)), ["sessionID"])
      expectInvalid(await rejection(runtime.session.remove(value as never)), ["sessionID"])
    }
  })

  it("session.saveMessage with no message, or one whose rows are malformed", async () => {
    const storage = new MemoryStorage()
    const { runtime, events, clear } = recordingRuntime({ storage })
    const session = await runtime.session.create()
    clear()
    const build = createBuilders()
    const user = build.user(session.id)
    for (const message of [null, "hello", {}, { info: user }, { info: user, parts: [null] }]) {
      const error = await rejection(runtime.session.saveMessage(message as never))
      expect(InvalidInputError.isInstance(error), JSON.stringify(message)).toBe(true)
    }
    expectInvalid(await rejection(runtime.session.saveMessage(null as never)), ["message"])
    expectInvalid(await rejection(runtime.session.saveMessage({ info: user } as never)), ["message.parts"])
    expect(await runtime.session.messages(session.id)).toEqual([])
    expect(events).toEqual([])
  })

  it("session.recordUsage with no usage, or a malformed one", async () => {
    const { runtime, events, clear } = recordingRuntime()
    const session = await runtime.session.create()
    clear()
    expectInvalid(await rejection(runtime.session.recordUsage(session.id, null as never)), ["usage"])
    expectInvalid(await rejection(runtime.session.recordUsage(session.id, { cost: 1 } as never)), [
      "usage.tokens",
    ])
    const tokens = { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } }
    const cases: [unknown, string][] = [
      [{ cost: -1, tokens }, "usage.cost"],
      [{ cost: Number.NaN, tokens }, "usage.cost"],
      [{ cost: Number.POSITIVE_INFINITY, tokens }, "usage.cost"],
      [{ cost: "1", tokens }, "usage.cost"],
      [{ cost: 1, costUnknown: false, tokens }, "usage.costUnknown"],
      [{ cost: 1, tokens: { ...tokens, input: -1 } }, "usage.tokens.input"],
      [{ cost: 1, tokens: { ...tokens, reasoning: Number.NaN } }, "usage.tokens.reasoning"],
      [{ cost: 1, tokens: { ...tokens, cache: { read: 0 } } }, "usage.tokens.cache.write"],
      [{ cost: 1, tokens: { ...tokens, cache: null } }, "usage.tokens.cache"],
    ]
    for (const [usage, path] of cases)
      expectInvalid(await rejection(runtime.session.recordUsage(session.id, usage as never)), [path])
    expect(await runtime.session.get(session.id)).toEqual(session)
    expect(events).toEqual([])
    // Keys a usage does not have are left out, as before.
    const info = await runtime.session.recordUsage(session.id, { cost: 0.5, tokens, extra: 1 } as never)
    expect(info).toMatchObject({ cost: 0.5, tokens })
    expect("extra" in info).toBe(false)
  })
})
