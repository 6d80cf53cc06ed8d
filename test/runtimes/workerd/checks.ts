// What the Worker's chat stream must hold: worker.ts's scripted turn (a weather tool call, then
// its answer in three text deltas) as AI SDK UI message chunks, in order, ending the stream.
import { deepStrictEqual } from "node:assert/strict"

/** One UI message chunk of the stream (`[DONE]` stands for the stream's end marker). */
export type UIChunk = { type: string; [field: string]: unknown }

type Check = [name: string, failure: string | undefined]

const ANSWER = "It is 21 °C in Oslo."

export function workerChecks(chunks: UIChunk[]): Check[] {
  const types = chunks.map((chunk) => chunk.type)
  const called = chunks.find((chunk) => chunk.type === "tool-input-available")
  const output = chunks.find((chunk) => chunk.type === "tool-output-available")
  const textID = chunks.find((chunk) => chunk.type === "text-start")?.id
  const text = chunks.filter((chunk) => chunk.type === "text-delta" && chunk.id === textID)
  const finish = chunks.find((chunk) => chunk.type === "finish")
  return [
    check("the stream starts a message and ends with finish and [DONE]", () => {
      deepStrictEqual(types[0], "start")
      deepStrictEqual(types.slice(-2), ["finish", "[DONE]"])
      deepStrictEqual(finish?.finishReason, "stop")
    }),
    check("two steps: the tool call, then the answer", () => {
      deepStrictEqual(
        types.filter((type) => type === "start-step" || type === "finish-step"),
        ["start-step", "finish-step", "start-step", "finish-step"],
      )
    }),
    check("the weather tool is called with its input and its output streams back", () => {
      deepStrictEqual(
        { toolName: called?.toolName, input: called?.input },
        {
          toolName: "weather",
          input: { city: "Oslo" },
        },
      )
      deepStrictEqual(output?.toolCallId, called?.toolCallId)
      deepStrictEqual(JSON.parse(String(output?.output)), { city: "Oslo", celsius: 21 })
    }),
    check(`the answer streams as three text deltas: "${ANSWER}"`, () => {
      deepStrictEqual(text.length, 3)
      deepStrictEqual(text.map((chunk) => chunk.delta).join(""), ANSWER)
      const end = types.indexOf("text-end")
      deepStrictEqual(end > types.lastIndexOf("text-delta") && end < types.indexOf("finish"), true)
    }),
  ]
}

function check(name: string, assert: () => void): Check {
  try {
    assert()
    return [name, undefined]
  } catch (error) {
    return [name, error instanceof Error ? error.message : String(error)]
  }
}
