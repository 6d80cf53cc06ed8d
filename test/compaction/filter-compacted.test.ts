import { describe, expect, it } from "vitest"
import { MessageV2 } from "../../src/index.js"
import { historyBuilder, idsOf } from "./history.js"

describe("MessageV2.filterCompacted", () => {
  it("returns the whole history when nothing was compacted", () => {
    const h = historyBuilder()
    h.user("one")
    h.assistant("answer one")
    h.user("two")
    h.assistant("answer two")
    const visible = MessageV2.filterCompacted(h.messages)
    expect(idsOf(visible)).toEqual(idsOf(h.messages))
    expect(visible).not.toBe(h.messages)
  })

  it("hides everything before a completed compaction that kept no tail", () => {
    const h = historyBuilder()
    h.user("one")
    h.assistant("answer one")
    const request = h.compaction()
    const summary = h.assistant("the summary", { summary: true })
    const next = h.user("two")
    const answer = h.assistant("answer two")
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(idsOf([request, summary, next, answer]))
  })

  it("keeps the retained tail, placed after the summary", () => {
    const h = historyBuilder()
    h.user("one")
    h.assistant("answer one")
    const tailUser = h.user("two")
    const tailAnswer = h.assistant("answer two")
    const request = h.compaction(tailUser.info.id)
    const summary = h.assistant("the summary", { summary: true })
    const resume = h.user("continue")
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(
      idsOf([request, summary, tailUser, tailAnswer, resume]),
    )
  })

  it("keeps a tail that starts inside a turn, without the turn's question", () => {
    const h = historyBuilder()
    h.user("one")
    h.assistant("step 1", { finish: "tool-calls", tool: { output: "x".repeat(100) } })
    const step2 = h.assistant("step 2", { finish: "tool-calls", tool: { output: "y" } })
    const step3 = h.assistant("step 3", { finish: "tool-calls", tool: { output: "z" } })
    const request = h.compaction(step2.info.id)
    const summary = h.assistant("the summary", { summary: true })
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(idsOf([request, summary, step2, step3]))
  })

  it("follows the latest of repeated compactions, whose summary already folds in the earlier one", () => {
    const h = historyBuilder()
    h.user("one")
    h.assistant("answer one")
    const firstTail = h.user("two")
    h.assistant("answer two")
    h.compaction(firstTail.info.id)
    h.assistant("first summary", { summary: true })
    h.user("three")
    h.assistant("answer three")
    const secondTail = h.user("four")
    const secondTailAnswer = h.assistant("answer four")
    const request = h.compaction(secondTail.info.id)
    const summary = h.assistant("second summary", { summary: true })
    const later = h.user("five")
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(
      idsOf([request, summary, secondTail, secondTailAnswer, later]),
    )
  })

  it("ignores a failed or unfinished summary and falls back to the compaction before it", () => {
    const h = historyBuilder()
    h.user("one")
    const request = h.compaction()
    const summary = h.assistant("first summary", { summary: true })
    const two = h.user("two")
    h.compaction()
    h.assistant("", { summary: true, error: true })
    const three = h.user("three")
    const unfinishedRequest = h.compaction()
    const unfinished = h.assistant("half a summ", { summary: true, finish: "" })
    // The failed compaction is left out with its request; the unfinished one is the loop's to redo.
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(
      idsOf([request, summary, two, three, unfinishedRequest, unfinished]),
    )
  })

  it("leaves out a failed compaction even with no completed one", () => {
    const h = historyBuilder()
    const one = h.user("one")
    const answer = h.assistant("answer one")
    h.compaction()
    h.assistant("", { summary: true, error: true })
    const two = h.user("two")
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(idsOf([one, answer, two]))
  })

  it("shows a message that arrived while the summary was written after the summary", () => {
    const h = historyBuilder()
    h.user("one")
    const request = h.compaction()
    const joined = h.user("a prompt that joined the compacting run")
    const summary = h.assistant("the summary", { summary: true })
    summary.info = { ...summary.info, parentID: request.info.id } as MessageV2.Assistant
    expect(idsOf(MessageV2.filterCompacted(h.messages))).toEqual(idsOf([request, summary, joined]))
  })
})
