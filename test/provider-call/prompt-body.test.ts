import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { assemblePrompt, EMPTY_BODY, extendBody, type PromptBody } from "../../src/provider-call/prompt.js"
import type { SpecMessage } from "../../src/provider-call/types.js"

type ToolMessage = Extract<SpecMessage, { role: "tool" }>

/** Tool messages answering `ids`, some empty (only approvals, which are not sent), some with options. */
const toolMessages = (ids: string[]) =>
  fc
    .array(fc.record({ empty: fc.boolean(), options: fc.boolean() }), { minLength: 1, maxLength: 3 })
    .map((shapes): ToolMessage[] => {
      const messages = shapes.map(
        (shape, index): ToolMessage => ({
          role: "tool",
          content: shape.empty
            ? []
            : [
                {
                  type: "tool-result",
                  toolCallId: `extra-${index}`,
                  toolName: "echo",
                  output: { type: "text", value: "x" },
                },
              ],
          ...(shape.options ? { providerOptions: { test: { index } } } : {}),
        }),
      )
      // The results of the calls go in the last one, so every call is answered.
      messages.at(-1)!.content.push(
        ...ids.map((id) => ({
          type: "tool-result" as const,
          toolCallId: id,
          toolName: "echo",
          output: { type: "text" as const, value: id },
        })),
      )
      return messages
    })

/** A conversation: turns of a question and steps, each step a tool call (or none) and its results. */
const conversation = fc
  .array(fc.array(fc.nat({ max: 2 }), { maxLength: 3 }), { minLength: 1, maxLength: 4 })
  .chain((turns) => {
    let call = 0
    const parts: fc.Arbitrary<SpecMessage[]>[] = []
    for (const steps of turns) {
      parts.push(fc.constant([{ role: "user", content: [{ type: "text", text: "question" }] }]))
      for (const calls of steps) {
        const ids = Array.from({ length: calls }, () => `call-${call++}`)
        const assistant: SpecMessage = {
          role: "assistant",
          content: ids.map((id) => ({
            type: "tool-call" as const,
            toolCallId: id,
            toolName: "echo",
            input: "{}",
          })),
        }
        parts.push(toolMessages(ids).map((tools): SpecMessage[] => [assistant, ...tools]))
      }
    }
    return fc.tuple(...parts).map((lists) => lists.flat())
  })

/** What the prompt of a body must be: the system message, then every message but empty tool ones. */
function expected(system: string | undefined, body: PromptBody): SpecMessage[] {
  const messages = body.messages.filter((message) => message.role !== "tool" || message.content.length > 0)
  return system === undefined ? messages : [{ role: "system", content: system }, ...messages]
}

describe("extendBody and assemblePrompt", () => {
  it("leave out empty tool messages, however the conversation was extended", () => {
    fc.assert(
      fc.property(
        conversation,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (messages, cuts, system) => {
          const at = [...new Set(cuts.map((cut) => cut % (messages.length + 1)))].sort((a, b) => a - b)
          const whole = extendBody(EMPTY_BODY, messages)
          let body = EMPTY_BODY
          const bodies: { body: PromptBody; prompt: SpecMessage[] }[] = []
          let from = 0
          for (const to of [...at, messages.length]) {
            body = extendBody(body, messages.slice(from, to))
            from = to
            const empty = body.messages.filter(
              (message) => message.role === "tool" && message.content.length === 0,
            )
            expect(body.empty).toBe(empty.length)
            if (body.open.size === 0) {
              const prompt = assemblePrompt(system ? "S" : undefined, body)
              expect(prompt).toEqual(expected(system ? "S" : undefined, body))
              bodies.push({ body, prompt: structuredClone(prompt) })
            }
          }
          expect(body.messages).toEqual(whole.messages)
          expect(assemblePrompt(undefined, body)).toEqual(assemblePrompt(undefined, whole))
          // An earlier body's prompt stays as it was sent.
          for (const earlier of bodies)
            expect(assemblePrompt(system ? "S" : undefined, earlier.body)).toEqual(earlier.prompt)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("hands out a prompt of its own, which a caller may change", () => {
    const body = extendBody(EMPTY_BODY, [{ role: "user", content: [{ type: "text", text: "hi" }] }])
    const prompt = assemblePrompt(undefined, body)
    prompt.push({ role: "user", content: [{ type: "text", text: "more" }] })
    expect(assemblePrompt(undefined, body)).toHaveLength(1)
    expect(body.messages).toHaveLength(1)
  })
})
