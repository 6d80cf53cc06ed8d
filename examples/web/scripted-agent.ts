/**
 * The story the web example plays offline: look at the files (a permission prompt), ask which
 * one to read (a question), read it, and answer with what it says. Each call decides from the
 * conversation so far rather than from a fixed list, so every new prompt, in any session, replays
 * the story from the start.
 */
import type { CallOptions, ScriptStep } from "agentloop-sdk/testing"
import { say } from "agentloop-sdk/testing"

type ToolResult = Extract<
  Extract<CallOptions["prompt"][number], { role: "tool" }>["content"][number],
  { type: "tool-result" }
>

/** A function turn for `scriptedModel` (via chooseModel's fallback). */
export function scriptedAgent(call: CallOptions): ScriptStep[] {
  const last = call.prompt.at(-1)
  const result =
    last?.role === "tool" ? last.content.findLast((part) => part.type === "tool-result") : undefined
  if (result?.toolName === "list_files") return askWhichFile(resultText(result).split("\n"))
  if (result?.toolName === "question") return readChosen(resultText(result))
  if (result?.toolName === "read_file") return answer(result, calledWith(call, result.toolCallId))
  return [
    ...streamedText("Let me look at the project files first, then I will ask you which one to read."),
    say.toolCall("list_files", { directory: "." }),
    say.usage({ input: 1_200, output: 40 }),
  ]
}

function askWhichFile(files: string[]): ScriptStep[] {
  const options = files.filter((file) => file.trim() !== "").map((file) => ({ label: file, description: "" }))
  return [
    say.toolCall("question", {
      questions: [{ question: "Which file should I read?", header: "File", options, custom: true }],
    }),
    say.usage({ input: 1_350, output: 60 }),
  ]
}

function readChosen(answers: string): ScriptStep[] {
  const path = /Answer: (.+)/.exec(answers)?.[1]?.trim() ?? "README.md"
  return [say.toolCall("read_file", { path }), say.usage({ input: 1_400, output: 20 })]
}

function answer(result: ToolResult, input: unknown): ScriptStep[] {
  const text = resultText(result)
  const firstLine = text.split("\n").find((line) => line.trim() !== "") ?? "(empty)"
  const path = (input as { path?: string } | undefined)?.path ?? "the file"
  const reply =
    result.output.type === "error-text" || result.output.type === "error-json"
      ? `I could not read ${path}: ${text}`
      : `You chose ${path}. Its first line reads: "${firstLine}". That is all it takes to read a file you picked.`
  return [...streamedText(reply), say.usage({ input: 1_500, output: 30 })]
}

/** A text part streamed in small deltas with pauses, so the page visibly fills in. */
function streamedText(text: string, pieces = 8, pauseMs = 100): ScriptStep[] {
  const id = "text-streamed"
  const size = Math.ceil(text.length / pieces)
  const steps: ScriptStep[] = [say.chunk({ type: "text-start", id })]
  for (let start = 0; start < text.length; start += size)
    steps.push(
      say.delay(pauseMs),
      say.chunk({ type: "text-delta", id, delta: text.slice(start, start + size) }),
    )
  steps.push(say.chunk({ type: "text-end", id }))
  return steps
}

/** The input of the call a result answers: results do not repeat it. */
function calledWith(call: CallOptions, toolCallId: string): unknown {
  // From the end: scripted call IDs repeat from one turn to the next.
  for (const message of call.prompt.toReversed())
    if (message.role === "assistant")
      for (const part of message.content)
        if (part.type === "tool-call" && part.toolCallId === toolCallId)
          // The prompt may carry the input as the model sent it: JSON text.
          return typeof part.input === "string" ? JSON.parse(part.input) : part.input
  return undefined
}

function resultText(result: ToolResult): string {
  const { output } = result
  if (output.type === "text" || output.type === "error-text") return output.value
  return JSON.stringify("value" in output ? output.value : output)
}
