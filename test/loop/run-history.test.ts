import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { trackHistory } from "../../src/loop/run-history.js"
import { filterCompacted } from "../../src/message/filter-compacted.js"
import type { WithParts } from "../../src/message/info.js"
import { historyBuilder, idsOf } from "../compaction/history.js"

/** A builder whose messages go only where the test puts them. */
function messagesBuilder() {
  const h = historyBuilder()
  const take = (message: WithParts) => {
    h.messages.pop()
    return message
  }
  return {
    user: (text = "question") => take(h.user(text)),
    answer: (finish = "tool-calls") => take(h.assistant("answer", { finish })),
    compaction: (tailStartID?: string) => take(h.compaction(tailStartID)),
    summary: (options: { error?: boolean; finish?: string } = {}) =>
      take(h.assistant("summary", { summary: true, ...options })),
  }
}

/** What the tracker says must be what a fresh look at its messages says. */
function expectCurrent(tracked: ReturnType<typeof trackHistory>) {
  expect(idsOf(tracked.visible())).toEqual(idsOf(filterCompacted(tracked.messages)))
  expect(tracked.latestUser()).toBe(tracked.messages.findLast((message) => message.info.role === "user"))
}

describe("trackHistory", () => {
  it("grows the list the model sees in place while messages are only appended", () => {
    const build = messagesBuilder()
    const tracked = trackHistory([build.user()])
    const visible = tracked.visible()
    const answers = [build.answer(), build.answer()]
    tracked.append(...answers)
    expect(tracked.visible()).toBe(visible)
    expectCurrent(tracked)
  })

  it("leaves a dropped message out, in a new list", () => {
    const build = messagesBuilder()
    const user = build.user()
    const dropped = build.answer()
    const tracked = trackHistory([user, build.answer(), dropped])
    const before = tracked.visible()
    tracked.remove(dropped)
    const after = tracked.visible()
    expect(after).not.toBe(before)
    expect(after).not.toContain(dropped)
    expect(idsOf(before)).toContain(dropped.info.id)
    tracked.append(build.answer())
    expectCurrent(tracked)
  })

  it("shows a replaced message as replaced, in a new list", () => {
    const build = messagesBuilder()
    const user = build.user()
    const answer = build.answer("stop")
    const tracked = trackHistory([user, answer])
    const before = tracked.visible()
    const settled = { ...answer, info: { ...answer.info, structured: { ok: true } } }
    tracked.replace(answer, settled)
    const after = tracked.visible()
    expect(after).not.toBe(before)
    expect(after.at(-1)).toBe(settled)
    expect(before.at(-1)).toBe(answer)
    expectCurrent(tracked)
  })

  it("hides what a compaction appended mid-run summarised", () => {
    const build = messagesBuilder()
    const first = build.user()
    const tracked = trackHistory([first, build.answer(), build.answer()])
    tracked.visible()
    const tail = build.user("kept")
    tracked.append(tail, build.answer("stop"))
    tracked.visible()
    const request = build.compaction(tail.info.id)
    tracked.append(request)
    expectCurrent(tracked)
    const summary = build.summary()
    tracked.append(summary)
    expect(tracked.visible()[0]).toBe(request)
    expect(tracked.visible()[1]).toBe(summary)
    expect(tracked.visible()).not.toContain(first)
    expectCurrent(tracked)
    tracked.append(build.user("resume"), build.answer())
    expectCurrent(tracked)
  })

  it("leaves out a compaction whose summary failed, once the failure is appended", () => {
    const build = messagesBuilder()
    const tracked = trackHistory([build.user(), build.answer("stop")])
    const request = build.compaction()
    tracked.append(request)
    expect(tracked.visible()).toContain(request)
    tracked.append(build.summary({ error: true }))
    expect(tracked.visible()).not.toContain(request)
    expectCurrent(tracked)
  })

  it("agrees with filterCompacted after any appends, removals and replacements", () => {
    const op = fc.oneof(
      fc.constant({ kind: "user" as const }),
      fc.constant({ kind: "answer" as const }),
      fc.record({ kind: fc.constant("compaction" as const), tail: fc.option(fc.nat(), { nil: undefined }) }),
      fc.record({
        kind: fc.constant("summary" as const),
        outcome: fc.constantFrom("done", "failed", "unfinished"),
      }),
      fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), fail: fc.boolean() }),
      fc.constant({ kind: "look" as const }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const build = messagesBuilder()
        const tracked = trackHistory([build.user()])
        for (const step of ops) {
          const messages = tracked.messages
          const pick = (at: number) => messages[at % messages.length]
          if (step.kind === "user") tracked.append(build.user())
          else if (step.kind === "answer") tracked.append(build.answer())
          else if (step.kind === "compaction") {
            const tail = step.tail === undefined || messages.length === 0 ? undefined : pick(step.tail)
            tracked.append(build.compaction(tail?.info.id))
          } else if (step.kind === "summary")
            tracked.append(
              build.summary(
                step.outcome === "failed"
                  ? { error: true }
                  : step.outcome === "unfinished"
                    ? { finish: "" }
                    : {},
              ),
            )
          else if (step.kind === "remove") {
            const message = pick(step.at)
            if (message) tracked.remove(message)
          } else if (step.kind === "replace") {
            const message = pick(step.at)
            if (!message) continue
            const info =
              step.fail && message.info.role === "assistant"
                ? { ...message.info, error: { name: "UnknownError", data: { message: "boom" } } }
                : { ...message.info }
            tracked.replace(message, { ...message, info } as WithParts)
          } else expectCurrent(tracked)
        }
        expectCurrent(tracked)
      }),
      { numRuns: 300 },
    )
  })
})
