import { describe, expect, it } from "vitest"
import { Agent } from "../../src/agent/index.js"
import { cleanTitle, generateTitle } from "../../src/loop/titles.js"
import { say, scriptedModel, type Turn } from "../../src/testing/index.js"

const agent = Agent.builtins().title!

async function titleFrom(turn: Turn, text = "How do I fix the login redirect loop?") {
  const model = scriptedModel([turn])
  const title = await generateTitle({ model, agent, text })
  return { title, model }
}

describe("generateTitle", () => {
  it("asks the model with the title agent's prompt and the user's text", async () => {
    const { title, model } = await titleFrom([say.text("Fix login redirect loop")])
    expect(title).toBe("Fix login redirect loop")
    expect(model.calls).toHaveLength(1)
    const [system, user] = model.calls[0]!.prompt
    expect(system).toEqual({ role: "system", content: agent.prompt })
    expect(JSON.stringify(user)).toContain("How do I fix the login redirect loop?")
    expect(model.calls[0]!.temperature).toBe(0.5)
  })

  it("takes the first non-empty line and trims quotes and whitespace", async () => {
    const { title } = await titleFrom([
      say.text('\n\n  "Fix login redirect loop"  \nBecause the user asked.', { chunks: 4 }),
    ])
    expect(title).toBe("Fix login redirect loop")
  })

  it("drops reasoning in think tags", async () => {
    const { title } = await titleFrom([
      say.text("<think>The user wants\na title.</think>\nLogin redirect fix"),
    ])
    expect(title).toBe("Login redirect fix")
  })

  it("resolves undefined when the answer is empty or never got past thinking", async () => {
    expect((await titleFrom([say.text("  \n ")])).title).toBeUndefined()
    expect((await titleFrom([say.text("<think>Still thinking about it")])).title).toBeUndefined()
  })

  it("resolves undefined, without throwing, when the model throws", async () => {
    expect((await titleFrom({ throws: new Error("boom") })).title).toBeUndefined()
  })

  it("resolves undefined when the stream fails after some text", async () => {
    expect((await titleFrom([say.text("Fix log"), say.error(new Error("overloaded"))])).title).toBeUndefined()
  })

  it("resolves undefined when aborted", async () => {
    const model = scriptedModel([[say.text("Fix"), say.delay(3_600_000), say.text(" login")]])
    const controller = new AbortController()
    setImmediate(() => controller.abort())
    expect(await generateTitle({ model, agent, text: "hi", abort: controller.signal })).toBeUndefined()
  })

  it("sends at most 10,000 characters of a long message", async () => {
    const { model } = await titleFrom([say.text("Big paste")], "x".repeat(50_000))
    const sent = JSON.stringify(model.calls[0]!.prompt[1])
    expect(sent.length).toBeLessThan(10_300)
  })
})

describe("cleanTitle", () => {
  it("cuts a long line to 100 characters", () => {
    const title = cleanTitle("word ".repeat(40))!
    expect(Array.from(title)).toHaveLength(100)
    expect(title.endsWith("…")).toBe(true)
    expect(cleanTitle("a".repeat(100))).toBe("a".repeat(100))
  })

  it("never splits a character made of two code units", () => {
    const title = cleanTitle(`${"a".repeat(98)}😀😀😀`)!
    expect(title).toBe(`${"a".repeat(98)}😀…`)
  })

  it("strips every think block and only the quotes that wrap the whole title", () => {
    expect(cleanTitle("<think>a</think><THINK>b</THINK>“Réparer la connexion”")).toBe("Réparer la connexion")
    expect(cleanTitle("'Fix `npm test`'")).toBe("Fix `npm test`")
    expect(cleanTitle("「ログイン修正」")).toBe("ログイン修正")
    expect(cleanTitle('"Fix it')).toBe('"Fix it')
  })
})
