import type { ModelMessage, TextStreamPart, ToolSet } from "ai"
import type { CallTelemetry } from "../telemetry/index.js"

export type StepCall = { toolCallId: string; toolName: string; input: unknown; dynamic: boolean }

type Execute = (
  input: unknown,
  options: { toolCallId: string; messages: ModelMessage[]; abortSignal: AbortSignal; context?: unknown },
) => unknown

/**
 * Runs a step's tool calls side by side and reports each one's `tool-result` or `tool-error`
 * part as it settles. The error is kept as thrown: the processor tells a person's "no" from a
 * failure by it.
 */
export function runCalls(
  calls: readonly StepCall[],
  context: { tools: ToolSet; abort: AbortSignal; messages: ModelMessage[]; telemetry: CallTelemetry },
  settled: (part: TextStreamPart<ToolSet>) => void,
): void {
  for (const call of calls) {
    const { toolCallId, toolName, input } = call
    const about = { toolCallId, toolName, input, ...(call.dynamic ? { dynamic: true } : {}) }
    const execute = context.tools[toolName]!.execute as Execute
    context.telemetry
      .tool(call, async () =>
        finalValue(execute(input, { toolCallId, messages: context.messages, abortSignal: context.abort })),
      )
      .then(
        (output) => settled({ type: "tool-result", ...about, output } as TextStreamPart<ToolSet>),
        (error: unknown) => settled({ type: "tool-error", ...about, error } as TextStreamPart<ToolSet>),
      )
  }
}

/** A tool's result: its value, or the last value it streamed. */
async function finalValue(result: unknown): Promise<unknown> {
  if (typeof result !== "object" || result === null || !(Symbol.asyncIterator in result)) return result
  let last: unknown
  for await (const value of result as AsyncIterable<unknown>) last = value
  return last
}
