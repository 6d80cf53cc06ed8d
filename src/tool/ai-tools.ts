import { jsonSchema, type ToolSet, tool } from "ai"
import { z } from "zod"
import { InvalidToolArgumentsError } from "./errors.js"
import type { Context, Info, Result } from "./tool.js"
import { truncateOutput } from "./truncate.js"

/** Runs after the arguments are validated and before the tool: may throw to refuse the call. */
export type BeforeTool = (tool: Info, args: unknown, context: Context) => Promise<void>

/**
 * Turns our tools into AI SDK tools whose `execute` validates the model's arguments, runs the
 * tool with its context, and truncates what it returns. The SDK is given the JSON schema
 * without a validator, so that invalid arguments reach us and get a message the model can act on.
 */
export function toAITools(
  tools: readonly Info[],
  contextFor: (callID: string, abort: AbortSignal) => Context,
  before?: BeforeTool,
): ToolSet {
  const set: ToolSet = {}
  for (const info of tools) {
    set[info.id] = tool({
      description: info.description,
      inputSchema: jsonSchema<unknown>(
        z.toJSONSchema(info.parameters, { io: "input", unrepresentable: "any" }) as Parameters<
          typeof jsonSchema
        >[0],
      ),
      execute: (input, options) =>
        runTool(
          info,
          input,
          contextFor(options.toolCallId, options.abortSignal ?? new AbortController().signal),
          before,
        ),
    })
  }
  return set
}

export async function runTool(info: Info, input: unknown, context: Context, before?: BeforeTool): Promise<Result> {
  const parsed = info.parameters.safeParse(input)
  if (!parsed.success) throw InvalidToolArgumentsError.fromZod(info.id, parsed.error)
  await before?.(info, parsed.data, context)
  const result = await info.execute(parsed.data, context)
  return { ...result, output: truncateOutput(result.output).output }
}
