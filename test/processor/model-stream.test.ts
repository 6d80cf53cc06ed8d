import type { TextStreamPart, ToolSet } from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type MessageV2, SessionProcessor, Tool } from "../../src/index.js"
import { modelInfo, turnSetup, user } from "./helpers.js"

type Part = TextStreamPart<ToolSet>
const part = (value: Record<string, unknown>) => value as unknown as Part
const usage = { inputTokens: 1_000, outputTokens: 100, totalTokens: 1_100 }

const finishStep = (finishReason: string) =>
  part({ type: "finish-step", finishReason, usage, response: {}, providerMetadata: undefined })

function processorWith(setup: Awaited<ReturnType<typeof turnSetup>>, stream: SessionProcessor.ModelStream) {
  const { runtime, assistant, language, abort } = setup
  const model = { language, info: modelInfo }
  return SessionProcessor.create({ runtime, assistantMessage: assistant, model, abort: abort.signal, stream })
}

/** Runs a tool as a stream producer would; the options differ between ai 6 and 7 (`context`). */
function runTool(tools: ToolSet, name: string, input: unknown, toolCallId: string, abortSignal: AbortSignal) {
  const execute = tools[name]?.execute as ((input: unknown, options: object) => Promise<unknown>) | undefined
  return execute?.(input, { toolCallId, messages: [], abortSignal, context: undefined })
}

describe("SessionProcessor with its own ModelStream", () => {
  it("stores what any stream producer yields, without streamText", async () => {
    const setup = await turnSetup([])
    const stream: SessionProcessor.ModelStream = async function* () {
      yield part({ type: "start-step", request: {}, warnings: [] })
      yield part({ type: "text-start", id: "t" })
      yield part({ type: "text-delta", id: "t", text: "Recorded " })
      yield part({ type: "text-delta", id: "t", text: "answer." })
      yield part({ type: "text-end", id: "t" })
      yield finishStep("stop")
    }
    const processor = processorWith(setup, stream)

    expect(await processor.process({ messages: user("hi") })).toBe("continue")
    const { info, parts } = await setup.stored()
    expect(parts.find((stored) => stored.type === "text")).toMatchObject({ text: "Recorded answer." })
    expect(info).toMatchObject({ finish: "stop", cost: 0.0045 })
    expect(setup.language.calls).toHaveLength(0)
  })

  it("hands the stream the tools, wired to the call's context: a tool it runs is stored", async () => {
    const setup = await turnSetup([])
    const echo = Tool.define("echo", {
      description: "Echoes",
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }, context) => ({
        title: text,
        output: `${context.callID}: ${text}`,
        metadata: {},
      }),
    })
    const stream: SessionProcessor.ModelStream = async function* ({ tools, abort }) {
      const input = { text: "hello" }
      yield part({ type: "start-step", request: {}, warnings: [] })
      yield part({ type: "tool-call", toolCallId: "call_1", toolName: "echo", input })
      const output = await runTool(tools, "echo", input, "call_1", abort)
      yield part({ type: "tool-result", toolCallId: "call_1", toolName: "echo", input, output })
      yield finishStep("tool-calls")
    }
    const processor = processorWith(setup, stream)

    expect(await processor.process({ messages: user("hi"), tools: [echo] })).toBe("continue")
    const tool = (await setup.stored()).parts.find(
      (stored): stored is MessageV2.ToolPart => stored.type === "tool",
    )
    expect(tool?.state).toMatchObject({ status: "completed", output: "call_1: hello", title: "hello" })
  })
})
