import { describe, expect, it } from "vitest"
import { parseID } from "../../src/id/parse-id.js"
import { createRuntime, InvalidInputError, NotFoundError } from "../../src/index.js"

/** The error `body` throws; fails the test when it throws nothing. */
function thrown(body: () => unknown): unknown {
  try {
    body()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("parseID", () => {
  it("refuses a value of any type with an InvalidInputError naming the field and what it got", () => {
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const cases: [unknown, string][] = [
      [10n, "10n"],
      [circular, "an object"],
      [Symbol("id"), "Symbol(id)"],
      [() => "ses_", "a function"],
      [undefined, "undefined"],
      [42, "42"],
      [["ses_"], '["ses_"]'],
      ["ses_123", '"ses_123"'],
    ]
    for (const [value, described] of cases) {
      const error = thrown(() => parseID("sessionID", "session", value))
      expect(InvalidInputError.isInstance(error), String(described)).toBe(true)
      expect((error as InvalidInputError).data.issues).toEqual([
        { path: "sessionID", message: `expected a session ID, got ${described}` },
      ])
      expect((error as InvalidInputError).message).toBe(
        `Invalid sessionID: expected a session ID, got ${described}`,
      )
    }
  })

  it("quotes only the first 100 characters of a huge value, with its length", () => {
    const huge = `ses_${"A".repeat(10 * 1024 * 1024)}`
    const error = thrown(() => parseID("sessionID", "session", huge)) as InvalidInputError
    expect(error.message).toBe(
      `Invalid sessionID: expected a session ID, got ${JSON.stringify(huge.slice(0, 100))}… (${huge.length} characters)`,
    )
    expect(error.data.issues[0]!.message.length).toBeLessThan(200)
  })
})

describe("NotFoundError.of", () => {
  it("keeps the whole ID in data but quotes at most 100 characters of it in the message", () => {
    const huge = "x".repeat(1_000_000)
    const error = NotFoundError.of("Session", huge)
    expect(error.data.id).toBe(huge)
    expect(error.message).toBe(`Session not found: ${"x".repeat(100)}… (1000000 characters)`)
    expect(NotFoundError.of("Session", "ses_1").message).toBe("Session not found: ses_1")
  })
})

describe("InvalidInputError.fromZod", () => {
  it("quotes at most 100 characters of a huge key in issue paths and messages", async () => {
    const runtime = createRuntime()
    const key = "k".repeat(1_000_000)
    const error = await runtime.session.create({ [key]: 1 } as never).catch((caught: unknown) => caught)
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).message.length).toBeLessThan(400)
    expect((error as InvalidInputError).message).toContain("(1000000 characters)")
    for (const issue of (error as InvalidInputError).data.issues)
      expect(issue.message.length).toBeLessThan(400)
  })
})
