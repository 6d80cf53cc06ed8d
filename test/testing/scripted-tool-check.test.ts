import { streamText } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Tool } from "../../src/index.js"
import {
  type CallOptions,
  createTestRuntime,
  ScriptedToolUnknownError,
  say,
  scriptedModel,
  turnText,
} from "../../src/testing/index.js"

const lookup = Tool.define("lookup", {
  description: "Looks an order up",
  parameters: z.object({ orderID: z.string() }),
  execute: async ({ orderID }) => ({ title: orderID, output: `order ${orderID}: paid`, metadata: {} }),
})

async function ask(runtime: ReturnType<typeof createTestRuntime>["runtime"], text = "refund order 1") {
  const session = await runtime.session.create()
  return runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text }] })
}

/** The names of the tools a model call offered, sorted. */
function offeredIn(call: CallOptions | undefined): string[] {
  return (call?.tools ?? []).map((tool) => tool.name).sort()
}

describe("a scripted call of a tool the runtime lacks", () => {
  it("fails the turn with an error naming the tool and what the request offered", async () => {
    const { runtime, model, verify } = createTestRuntime({
      tools: [lookup],
      turns: [[say.toolCall("refund", { orderID: "1" })], [say.text("Refunded.")]],
    })
    const answer = await ask(runtime)
    const offered = offeredIn(model.calls[0])
    expect(offered).toContain("lookup")
    const error = answer.info.role === "assistant" ? answer.info.error : undefined
    expect(error?.name).toBe("UnknownError")
    expect(error?.name === "UnknownError" && error.data.message).toBe(
      'ScriptedToolUnknownError: scripted call of "refund" in turn 1, but the runtime has no such tool;' +
        ` the request offered: ${offered.join(", ")}`,
    )
    expect(() => turnText(answer)).toThrow(
      'the turn ended with finish "error": UnknownError: ScriptedToolUnknownError: scripted call of "refund"',
    )
    expect(() => verify()).toThrow(ScriptedToolUnknownError)
    await runtime.close()
  })

  it("is thrown by verify() as a named error carrying the tool and the offered tools", async () => {
    const { runtime, model, verify } = createTestRuntime({
      tools: [lookup],
      turns: [[say.toolCall("refund", { orderID: "1" })]],
    })
    await ask(runtime)
    const thrown = (() => {
      try {
        verify()
      } catch (error) {
        return error
      }
    })()
    expect(ScriptedToolUnknownError.isInstance(thrown)).toBe(true)
    expect((thrown as ScriptedToolUnknownError).data).toMatchObject({
      toolName: "refund",
      turn: 1,
      offered: offeredIn(model.calls[0]),
    })
    await runtime.close()
  })

  it("plays a call of a tool the runtime has but this request does not offer (a rule denies it)", async () => {
    const { runtime, verify } = createTestRuntime({
      tools: [lookup],
      permission: [{ permission: "lookup", pattern: "*", action: "deny" }],
      turns: [[say.toolCall("lookup", { orderID: "1" })], [say.text("I cannot look it up.")]],
    })
    const answer = await ask(runtime)
    expect(answer.info.role === "assistant" && answer.info.error).toBeFalsy()
    const tool = (await runtime.session.messages(answer.info.sessionID))
      .flatMap((message) => message.parts)
      .find((part) => part.type === "tool")
    expect(tool?.type === "tool" && tool.state.status === "error" && tool.state.error).toContain(
      "unavailable tool 'lookup'",
    )
    expect(() => verify()).not.toThrow()
    await runtime.close()
  })

  it("plays a call marked unavailable, for tests of how the loop handles a model's mistake", async () => {
    const { runtime, verify } = createTestRuntime({
      turns: [[say.toolCall("nope", {}, { unavailable: true })], [say.text("Sorry.")]],
    })
    const session = await runtime.session.create()
    await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
    const tool = (await runtime.session.messages(session.id))
      .flatMap((message) => message.parts)
      .find((part) => part.type === "tool")
    expect(tool?.type === "tool" && tool.state.status === "error" && tool.state.error).toContain(
      "unavailable tool 'nope'",
    )
    expect(() => verify()).not.toThrow()
    await runtime.close()
  })

  it("is not checked by a scripted model made without knownTools", async () => {
    const model = scriptedModel([[say.toolCall("read", { path: "a" })]])
    const result = streamText({ model, prompt: "x" })
    expect(await result.finishReason).toBe("tool-calls")
    expect(() => model.verify()).not.toThrow()
  })

  it("is checked by a scripted model made with knownTools, against them and the call's tools", async () => {
    const model = scriptedModel([[say.toolCall("read", { path: "a" })]], {
      knownTools: (name) => name === "grep",
    })
    let reported: unknown
    const result = streamText({
      model,
      prompt: "x",
      onError: ({ error }) => {
        reported = error
      },
    })
    await result.consumeStream()
    expect(ScriptedToolUnknownError.isInstance(reported)).toBe(true)
    expect(String(reported)).toContain('scripted call of "read" in turn 1, but the runtime has no such tool')
    expect(String(reported)).toContain("the request offered no tools")
    expect(() => model.verify()).toThrow(ScriptedToolUnknownError)
  })
})
