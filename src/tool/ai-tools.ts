import { type JSONSchema7, jsonSchema, type ToolSet, tool } from "ai"
import { InvalidToolArgumentsError, UnstorableResultError } from "./errors.js"
import { toolInputSchema } from "./json-schema.js"
import { unstorable } from "./storable.js"
import type { Context, Info, Result } from "./tool.js"
import { truncateOutput } from "./truncate.js"

/**
 * Around each call: `start` learns that the call runs (before anything it does can ask a human);
 * `before` gets the validated arguments and returns those to use (or throws to refuse); `after`
 * may change the result.
 */
export type ToolHooks = {
  start?: (tool: Info, input: unknown, context: Context) => Promise<void>
  before?: (tool: Info, args: unknown, context: Context) => Promise<unknown>
  after?: (tool: Info, result: Result, context: Context) => Promise<Result>
}

/**
 * Turns our tools into AI SDK tools whose `execute` validates the model's arguments, runs the
 * tool with its context, and truncates what it returns. The SDK is given the JSON schema
 * without a validator, so that invalid arguments reach us and get a message the model can act on.
 */
export function toAITools(
  tools: readonly Info[],
  contextFor: (callID: string, abort: AbortSignal) => Context,
  hooks: ToolHooks = {},
): ToolSet {
  const set: ToolSet = {}
  for (const info of tools) {
    set[info.id] = tool({
      description: info.description,
      // Lazy: a step that calls the provider directly brings its own converted schema.
      inputSchema: jsonSchema<unknown>(() => toolInputSchema(info) as JSONSchema7 | PromiseLike<JSONSchema7>),
      execute: (input, options) =>
        runTool(
          info,
          input,
          contextFor(options.toolCallId, options.abortSignal ?? new AbortController().signal),
          hooks,
        ),
    })
  }
  return set
}

export async function runTool(
  info: Info,
  input: unknown,
  context: Context,
  hooks: ToolHooks = {},
): Promise<Result> {
  await hooks.start?.(info, input, context)
  // Async: parameters may check with an AI SDK schema's own (async) validation.
  const parsed = await info.parameters.safeParseAsync(input)
  if (!parsed.success) throw InvalidToolArgumentsError.fromZod(info.id, parsed.error)
  const args = hooks.before ? await hooks.before(info, parsed.data, context) : parsed.data
  const executed = await info.execute(args, context)
  const result = hooks.after ? await hooks.after(info, executed, context) : executed
  // Checked here so that the call ends as a tool error the model reads, not a failed write.
  const problem = unstorable({ ...result }, "result")
  if (problem)
    throw new UnstorableResultError({
      tool: info.id,
      message: `The ${info.id} tool returned a result that cannot be stored: ${problem}`,
    })
  return { ...result, output: truncateOutput(result.output).output }
}
