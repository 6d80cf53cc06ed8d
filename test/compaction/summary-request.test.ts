import { describe, expect, it } from "vitest"
import { buildSummaryRequest } from "../../src/compaction/summary-request.js"
import type { MessageV2 } from "../../src/index.js"
import { testModelInfo } from "../../src/testing/index.js"
import { historyBuilder } from "./history.js"

const build = (history: MessageV2.WithParts[], level: "normal" | "reduced", budget = 1_000_000) =>
  buildSummaryRequest({ history, model: testModelInfo, level, budget, protectedTools: ["question"] })
const textOf = (messages: unknown) => JSON.stringify(messages)

describe("buildSummaryRequest", () => {
  it("cuts tool outputs, turns media into notes and ends with the instruction", async () => {
    const h = historyBuilder()
    const question = h.user("look at this", [])
    question.parts.push({
      id: `${question.parts[0]!.id}1`,
      sessionID: h.sessionID,
      messageID: question.info.id,
      type: "file",
      mime: "image/png",
      url: "data:image/png;base64,iVBORw0KGgo=",
      filename: "cat.png",
    })
    const answer = h.assistant("read it", { tool: { output: "o".repeat(5_000) } })
    const tool = answer.parts[1] as MessageV2.ToolPart
    if (tool.state.status === "completed")
      tool.state.attachments = [
        {
          ...question.parts[1]!,
          messageID: answer.info.id,
          mime: "application/pdf",
          filename: "spec.pdf",
        } as never,
      ]

    const request = await build(h.messages, "normal")
    const sent = textOf(request.messages)
    expect(sent).toContain("[Attached image/png: cat.png]")
    expect(sent).toContain("[Attached application/pdf: spec.pdf]")
    expect(sent).not.toContain("iVBORw0KGgo")
    expect(sent).toContain(`${"o".repeat(2_000)}\\n[3000 more characters cut]`)
    expect(sent).not.toContain("o".repeat(2_001))
    expect(request.messages.at(-1)).toMatchObject({ role: "user" })
    expect(textOf(request.messages.at(-1))).toContain("Summarise the conversation above")
    expect(request.omitted).toBe(0)
    // Tool calls go as text: the summary call defines no tools for them to refer to.
    const kinds = request.messages.flatMap((message) =>
      typeof message.content === "string" ? ["text"] : message.content.map((content) => content.type),
    )
    expect(new Set(kinds)).toEqual(new Set(["text"]))
    expect(request.messages.some((message) => message.role === "tool")).toBe(false)
    expect(sent).toContain('[Tool call: read {\\"path\\":\\"a.ts\\"}]')
    // The history given is not changed.
    expect(tool.state.status === "completed" && tool.state.output).toHaveLength(5_000)
  })

  it("asks to update the previous summary when the history starts with one", async () => {
    const h = historyBuilder()
    h.compaction()
    h.assistant("PREVIOUS-SUMMARY", { summary: true })
    h.user("more work")
    const request = await build(h.messages, "normal")
    expect(textOf(request.messages[1])).toContain("PREVIOUS-SUMMARY")
    expect(textOf(request.messages.at(-1))).toContain("previous summary")
  })

  it("reduced: clears outputs, cuts texts, drops reasoning and the oldest messages, keeps the previous summary", async () => {
    const h = historyBuilder()
    h.compaction()
    h.assistant("PREVIOUS-SUMMARY", { summary: true })
    for (let turn = 0; turn < 10; turn++) {
      h.user(`TURN-${turn} ${"t".repeat(3_000)}`)
      h.assistant(`answer ${turn}`, { tool: { output: "o".repeat(3_000) } })
    }
    h.assistant("", { tool: { name: "question", output: "q".repeat(3_000) } })
    const normal = await build(h.messages, "normal")
    const reduced = await build(h.messages, "reduced", 1_500)
    expect(reduced.tokens).toBeLessThanOrEqual(1_500)
    expect(reduced.tokens).toBeLessThan(normal.tokens)
    expect(reduced.omitted).toBeGreaterThan(0)
    const sent = textOf(reduced.messages)
    expect(sent).toContain("PREVIOUS-SUMMARY")
    expect(sent).not.toContain("TURN-0 ")
    expect(sent).toContain("TURN-9 ")
    expect(sent).toContain("[Old tool result content cleared]")
    expect(sent).not.toContain("t".repeat(2_001))
    // A protected tool's output is only cut, not cleared.
    expect(sent).toContain("q".repeat(2_000))
    expect(reduced.messages[2]).toMatchObject({ role: "user" })
    expect(textOf(reduced.messages[2])).toContain(`${reduced.omitted} earlier messages are left out`)
  })

  it("reduced without a previous summary opens with a user message", async () => {
    const h = historyBuilder()
    for (let turn = 0; turn < 4; turn++) {
      h.user(`TURN-${turn} ${"t".repeat(8_000)}`)
      h.assistant(`answer ${turn}`)
    }
    const reduced = await build(h.messages, "reduced", 700)
    expect(reduced.omitted).toBeGreaterThan(0)
    expect(reduced.messages[0]).toMatchObject({ role: "user" })
    expect(textOf(reduced.messages[0])).toContain("earlier messages are left out")
  })
})
