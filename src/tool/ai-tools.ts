import { type JSONSchema7, jsonSchema, type Tool, type ToolSet, tool } from "ai"
import { InvalidToolArgumentsError, UnstorableResultError } from "./errors.js"
import { toolInputSchema } from "./json-schema.js"
import { type StructuredResult, toResult } from "./result.js"
import { unstorable } from "./storable.js"
import type { Context, Info, Result } from "./tool.js"
import { reportToolError, type ToolErrorHandler } from "./tool-error.js"
import { truncateOutput } from "./truncate.js"

/**
 * Around each call: `start` learns that the call runs (before anything it does can ask a human);
 * `before` gets the validated arguments and returns those to use (or throws to refuse); `after`
 * may change the result; `error` gets what the call failed with (not awaited, its own failure
 * logged), unless the call's signal aborted.
 */
export type ToolHooks = {
  start?: (tool: Info, input: unknown, context: Context) => Promise<void>
  before?: (tool: Info, args: unknown, context: Context) => Promise<unknown>
  after?: (tool: Info, result: Result, context: Context) => Promise<Result>
  error?: ToolErrorHandler
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
    // Lazy: a step that calls the provider directly brings its own converted schema.
    const inputSchema = jsonSchema<unknown>(
      () => toolInputSchema(info) as JSONSchema7 | PromiseLike<JSONSchema7>,
    )
    const execute: NonNullable<Tool<unknown, StructuredResult>["execute"]> = (input, options) =>
      runTool(
        info,
        input,
        contextFor(options.toolCallId, options.abortSignal ?? new AbortController().signal),
        hooks,
      )
    const { provider } = info
    if (!provider) {
      set[info.id] = tool({ description: info.description, inputSchema, execute })
      continue
    }
    // A provider tool without execute is left to the provider, whose stream brings the result.
    // ai 6 and ai 7 type provider tools differently (7 adds a context parameter and splits the
    // tools the provider runs from those it only defines); the object is the same for both.
    const providerTool = {
      type: "provider",
      id: provider.id,
      args: provider.args,
      inputSchema,
      ...(provider.executed ? {} : { execute }),
    }
    set[info.id] = providerTool as ToolSet[string]
  }
  return set
}

/**
 * Runs one call of a tool: validates the model's arguments, runs it between the hooks, and makes
 * what it returned a result (see `Tool.ExecuteResult`) whose output is cut to size.
 */
export async function runTool(
  info: Info,
  input: unknown,
  context: Context,
  hooks: ToolHooks = {},
): Promise<StructuredResult> {
  await hooks.start?.(info, input, context)
  try {
    return await validateAndRun(info, input, context, hooks)
  } catch (error) {
    if (hooks.error && !context.abort.aborted) {
      const { sessionID, messageID, callID } = context
      reportToolError(hooks.error, error, { sessionID, messageID, callID, tool: info.id, input })
    }
    throw error
  }
}

async function validateAndRun(
  info: Info,
  input: unknown,
  context: Context,
  hooks: ToolHooks,
): Promise<StructuredResult> {
  // Async: parameters may check with an AI SDK schema's own (async) validation.
  const parsed = await info.parameters.safeParseAsync(input)
  if (!parsed.success) throw InvalidToolArgumentsError.fromZod(info.id, parsed.error)
  const args = hooks.before ? await hooks.before(info, parsed.data, context) : parsed.data
  const executed = await info.execute(args, context)
  // Checked here, before JSON.stringify meets it, so that the call ends as a tool error the
  // model reads, not a failed write; again after `after`, which may have added to it.
  assertStorable(info, executed)
  const { structured, ...normalised } = toResult(executed)
  const text = normalised.output
  const result = hooks.after ? await hooks.after(info, normalised, context) : normalised
  assertStorable(info, { ...result })
  const cut = truncateOutput(result.output)
  // The value goes to the model only while the text is still exactly its JSON.
  const keep = structured !== undefined && !cut.truncated && result.output === text
  return { ...result, output: cut.output, ...(keep ? { structured } : {}) }
}

function assertStorable(info: Info, value: unknown): void {
  const problem = unstorable(value, "result")
  if (problem)
    throw new UnstorableResultError({
      tool: info.id,
      message: `The ${info.id} tool returned a result that cannot be stored: ${problem}`,
    })
}
