import { describe, expect, it } from "vitest"
import { Compaction, type MessageV2 } from "../../src/index.js"
import { historyBuilder } from "./history.js"

// Estimates are characters / 4, so a text of 4n characters costs n tokens.
const tokens = (n: number) => "x".repeat(n * 4)

describe("Compaction.selectTail", () => {
  function threeTurns() {
    const h = historyBuilder()
    const first = h.user(tokens(100))
    h.assistant(tokens(400))
    const second = h.user(tokens(100))
    h.assistant(tokens(400))
    const third = h.user(tokens(100))
    const step1 = h.assistant(tokens(300))
    const step2 = h.assistant(tokens(300))
    return { h, first, second, third, step1, step2 }
  }

  it("keeps the latest turns that fit the budget", () => {
    const { h, second, third } = threeTurns()
    expect(Compaction.selectTail(h.messages, { turns: 2, budget: 1_300 })).toBe(second.info.id)
    expect(Compaction.selectTail(h.messages, { turns: 2, budget: 1_199 })).toBe(third.info.id)
    expect(Compaction.selectTail(h.messages, { turns: 1, budget: 10_000 })).toBe(third.info.id)
  })

  it("splits the latest turn when it does not fit whole", () => {
    const { h, step1, step2 } = threeTurns()
    expect(Compaction.selectTail(h.messages, { turns: 2, budget: 650 })).toBe(step1.info.id)
    expect(Compaction.selectTail(h.messages, { turns: 2, budget: 400 })).toBe(step2.info.id)
  })

  it("keeps nothing when not even the newest message fits, or no turns are wanted", () => {
    const { h } = threeTurns()
    expect(Compaction.selectTail(h.messages, { turns: 2, budget: 299 })).toBeUndefined()
    expect(Compaction.selectTail(h.messages, { turns: 0, budget: 10_000 })).toBeUndefined()
    expect(Compaction.selectTail([], { turns: 2, budget: 10_000 })).toBeUndefined()
  })
})

describe("Compaction.selectPrune", () => {
  /** `turns` turns, each one assistant message with a tool output of 10,000 estimated tokens. */
  function session(turns: number, tool = "read") {
    const h = historyBuilder()
    const outputs: MessageV2.ToolPart[] = []
    for (let index = 0; index < turns; index++) {
      h.user(`turn ${index}`)
      const answer = h.assistant("", { tool: { name: tool, output: tokens(10_000) } })
      outputs.push(answer.parts[1] as MessageV2.ToolPart)
    }
    return { h, outputs }
  }

  it("clears outputs beyond the newest 40,000 tokens, older than the last two turns, when that frees over 20,000", () => {
    const { h, outputs } = session(9)
    const selection = Compaction.selectPrune(h.messages)
    // The last two turns are skipped; of the seven older outputs the newest four are protected.
    expect(selection.tokens).toBe(30_000)
    expect(selection.parts.map((part) => part.id)).toEqual([outputs[2]!.id, outputs[1]!.id, outputs[0]!.id])
  })

  it("does nothing when it would free 20,000 tokens or less", () => {
    const { h } = session(8)
    expect(Compaction.selectPrune(h.messages)).toEqual({ parts: [], tokens: 0 })
  })

  it("skips protected tools", () => {
    const { h } = session(9, "skill")
    expect(Compaction.selectPrune(h.messages).parts).toEqual([])
    const custom = session(9, "notes")
    expect(Compaction.selectPrune(custom.h.messages, { protectedTools: ["notes"] }).parts).toEqual([])
  })

  it("stops at a summary and at an output already cleared", () => {
    const { h, outputs } = session(9)
    const cleared = outputs[3]!
    if (cleared.state.status === "completed") cleared.state.time.compacted = 3
    // Outputs 4-6 (30,000 tokens) are protected; without the stop at the cleared output 3,
    // outputs 0-2 would be cleared.
    expect(Compaction.selectPrune(h.messages).parts).toEqual([])

    const after = historyBuilder()
    after.user("old")
    after.assistant("", { tool: { output: tokens(100_000) } })
    after.compaction()
    after.assistant("summary", { summary: true })
    for (let index = 0; index < 3; index++) {
      after.user(`turn ${index}`)
      after.assistant("", { tool: { output: tokens(30_000) } })
    }
    // The last two turns are skipped and the turn before them is protected; without the stop at
    // the summary, the 100,000-token output before it would be cleared.
    expect(Compaction.selectPrune(after.messages).parts).toEqual([])
  })
})
