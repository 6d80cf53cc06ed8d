import { describe, expect, it } from "vitest"
import { createPromptCache } from "../../src/loop/prompt-cache.js"
import type { WithParts } from "../../src/message/info.js"
import { type TargetModel, toModelMessages } from "../../src/message/to-model-messages.js"
import { historyBuilder } from "../compaction/history.js"

const model: TargetModel = { providerID: "test", id: "test-model", capabilities: { attachment: false } }
const other: TargetModel = { providerID: "other", id: "other-model", capabilities: { attachment: false } }

/** A turn of `steps` tool steps: the user message, then each step's answer. */
function turn(steps: number) {
  const h = historyBuilder()
  h.user("question")
  for (let step = 0; step < steps; step++)
    h.assistant(`step ${step}`, { finish: "tool-calls", tool: { output: `output ${step}` } })
  return h
}

async function expectFresh(
  cache: ReturnType<typeof createPromptCache>,
  history: WithParts[],
  target = model,
) {
  const messages = await cache(history, target)
  expect(messages).toEqual(await toModelMessages(history, target))
  return messages
}

describe("createPromptCache", () => {
  it("converts only what a growing list appended, and hands out a list of its own each time", async () => {
    const h = turn(2)
    const cache = createPromptCache()
    const history = [...h.messages]
    const first = await expectFresh(cache, history)
    history.push(h.assistant("step 2", { finish: "tool-calls", tool: { output: "output 2" } }))
    const second = await expectFresh(cache, history)
    expect(second).not.toBe(first)
    // The earlier messages' conversions are the very same objects: kept, not redone.
    for (const [index, message] of first.entries()) expect(second[index]).toBe(message)
    // A caller's change to its list is its own.
    second.push({ role: "user", content: "final" })
    await expectFresh(cache, history)
  })

  it("converts a new list without a dropped message as it is", async () => {
    const h = turn(3)
    const cache = createPromptCache()
    const history = [...h.messages]
    await expectFresh(cache, history)
    await expectFresh(
      cache,
      history.filter((_, index) => index !== 2),
    )
    await expectFresh(cache, history.slice(0, -1))
  })

  it("converts a new list with a replaced message as it is", async () => {
    const h = turn(3)
    const cache = createPromptCache()
    const history = [...h.messages]
    await expectFresh(cache, history)
    const replaced = history.with(2, {
      ...history[2]!,
      parts: history[2]!.parts.filter((part) => part.type !== "tool"),
    })
    await expectFresh(cache, replaced)
  })

  it("sees a list whose last message was removed or replaced in place", async () => {
    const h = turn(3)
    const cache = createPromptCache()
    const history = [...h.messages]
    await expectFresh(cache, history)
    history.pop()
    await expectFresh(cache, history)
    history[history.length - 1] = { ...history.at(-1)!, parts: history.at(-1)!.parts.slice(0, 1) }
    await expectFresh(cache, history)
  })

  it("converts for each target model on its own", async () => {
    const h = turn(2)
    const cache = createPromptCache()
    const history = [...h.messages]
    await expectFresh(cache, history, model)
    await expectFresh(cache, history, other)
    history.push(h.assistant("step 2", { finish: "tool-calls", tool: { output: "output 2" } }))
    await expectFresh(cache, history, model)
  })

  it("goes on from a compaction appended mid-run, then from the list that follows it", async () => {
    const h = turn(3)
    const cache = createPromptCache()
    const history = [...h.messages]
    await expectFresh(cache, history)
    const request = h.compaction()
    const summary = h.assistant("the summary", { summary: true })
    history.push(request)
    await expectFresh(cache, history)
    const after = [request, summary]
    await expectFresh(cache, after)
    after.push(h.user("resume"))
    await expectFresh(cache, after)
  })
})
