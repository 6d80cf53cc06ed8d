import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Compaction, type MessageV2 } from "../../src/index.js"
import { historyBuilder } from "./history.js"

/** A history as turns: each a question and some answers, each answer maybe with a tool output. */
const turns = fc.array(
  fc.record({
    question: fc.nat({ max: 400 }),
    answers: fc.array(
      fc.record({ text: fc.nat({ max: 400 }), tool: fc.option(fc.nat({ max: 60_000 }), { nil: undefined }) }),
      { maxLength: 4 },
    ),
  }),
  { maxLength: 12 },
)

type Shape = { question: number; answers: { text: number; tool: number | undefined }[] }[]

function build(shape: Shape, toolName = "read") {
  const h = historyBuilder()
  for (const turn of shape) {
    h.user("q".repeat(turn.question))
    for (const answer of turn.answers)
      h.assistant("a".repeat(answer.text), {
        finish: "tool-calls",
        ...(answer.tool === undefined ? {} : { tool: { name: toolName, output: "o".repeat(answer.tool) } }),
      })
  }
  return h.messages
}

const cost = (messages: MessageV2.WithParts[]) =>
  messages.reduce((sum, message) => sum + Compaction.estimateMessage(message), 0)

describe("compaction selection, for any history", () => {
  it("selectTail keeps at most `turns` turns within the budget, splitting only the latest", () => {
    fc.assert(
      fc.property(turns, fc.nat({ max: 4 }), fc.nat({ max: 3_000 }), (shape, wanted, budget) => {
        const messages = build(shape)
        const start = Compaction.selectTail(messages, { turns: wanted, budget })
        if (start === undefined) return
        const index = messages.findIndex((message) => message.info.id === start)
        const tail = messages.slice(index)
        expect(cost(tail)).toBeLessThanOrEqual(budget)
        const questions = tail.filter((message) => message.info.role === "user").length
        expect(questions).toBeLessThanOrEqual(wanted)
        // A tail that starts inside a turn holds nothing older than that turn's answers.
        if (tail[0]!.info.role === "assistant") expect(questions).toBe(0)
      }),
      { numRuns: 500 },
    )
  })

  it("selectPrune clears only completed outputs older than two turns, beyond the protected tokens", () => {
    fc.assert(
      fc.property(turns, (shape) => {
        const messages = build(shape)
        const selection = Compaction.selectPrune(messages)
        if (selection.parts.length === 0) {
          expect(selection.tokens).toBe(0)
          return
        }
        expect(selection.tokens).toBeGreaterThan(Compaction.PRUNE_MINIMUM)
        const selected = new Set(selection.parts.map((part) => part.id))
        // No part of the last two turns is selected.
        const users = messages.flatMap((message, index) => (message.info.role === "user" ? [index] : []))
        const recent = users.length >= 2 ? users[users.length - 2]! : 0
        for (const message of messages.slice(recent))
          for (const part of message.parts) expect(selected.has(part.id)).toBe(false)
        // The newest outputs stay up to the protected amount; the first cleared one crossed it.
        const kept = messages
          .slice(0, recent)
          .flatMap((message) => message.parts)
          .filter((part) => part.type === "tool" && !selected.has(part.id))
          .reduce(
            (sum, part) =>
              sum +
              (part.type === "tool" && part.state.status === "completed"
                ? Compaction.estimateTokens(part.state.output)
                : 0),
            0,
          )
        expect(kept).toBeLessThanOrEqual(Compaction.PRUNE_PROTECT)
        const newest = selection.parts[0]!
        const crossing =
          newest.state.status === "completed" ? Compaction.estimateTokens(newest.state.output) : 0
        expect(kept + crossing).toBeGreaterThan(Compaction.PRUNE_PROTECT)
      }),
      { numRuns: 500 },
    )
  })

  it("selectPrune never selects a protected tool's output", () => {
    fc.assert(
      fc.property(turns, (shape) => {
        expect(Compaction.selectPrune(build(shape, "skill")).parts).toEqual([])
      }),
      { numRuns: 200 },
    )
  })
})
