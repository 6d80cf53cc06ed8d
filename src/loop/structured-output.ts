import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import { StructuredOutputError } from "../message/errors.js"
import type { OutputFormat } from "../message/format.js"
import type { Assistant, User, WithParts } from "../message/info.js"
import type { ToolPart } from "../message/part.js"
import { define, type ToolInfo } from "../tool/tool.js"
import { isFinal } from "./exit-rule.js"
import type { LoopDeps } from "./loop-deps.js"
import { failAnswer, settleAnswer } from "./model-call.js"
import type { RunHistory } from "./run-history.js"

/** The tool the model answers with when a prompt asks for structured output (OpenCode's name). */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput"

/** Schema failures a prompt tolerates before its answer fails, when `retries` is not given. */
export const DEFAULT_STRUCTURED_RETRIES = 2

export type JsonSchemaFormat = Extract<OutputFormat, { type: "json_schema" }>

export const STRUCTURED_OUTPUT_SYSTEM = `The user asked for the answer as structured data. When your work is done, call the ${STRUCTURED_OUTPUT_TOOL} tool once, with the answer as its arguments. Do not answer in plain text: only the ${STRUCTURED_OUTPUT_TOOL} call counts as your answer. If the tool reports that your arguments do not match its schema, call it again with corrected arguments.`

/** Instead of MAX_STEPS on a structured turn's last step, whose only tool is StructuredOutput. */
export const STRUCTURED_FINAL_STEP = `You have reached the maximum number of steps for this turn. Call the ${STRUCTURED_OUTPUT_TOOL} tool now with your best answer from what you found so far.`

const DESCRIPTION = `Give your final answer as structured data matching this tool's parameters. Call it exactly once, when you have the answer; its arguments are the answer.`

type FromJSONSchema = (schema: Record<string, unknown>) => z.ZodType

/** The JSON schema of a prompt's format as a zod schema; InvalidInputError when it is not usable. */
export function formatSchema(format: JsonSchemaFormat): z.ZodType {
  // `z.fromJSONSchema` came with zod 4.2; the peer range starts at 4.0.
  const fromJSONSchema = (z as unknown as { fromJSONSchema?: FromJSONSchema }).fromJSONSchema
  if (!fromJSONSchema) throw refused("structured output needs zod 4.2 or later (z.fromJSONSchema)")
  if (format.schema.type !== "object")
    throw refused('the schema must describe an object (type: "object"); wrap other values in a property')
  try {
    return fromJSONSchema(format.schema)
  } catch (error) {
    throw refused(`not a usable JSON schema: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function refused(message: string): InvalidInputError {
  return new InvalidInputError({
    message: `Invalid session.prompt input: format.schema: ${message}`,
    issues: [{ path: "format.schema", message }],
  })
}

/** The user message's format when it asks for structured output. */
export function structuredFormat(user: User): JsonSchemaFormat | undefined {
  return user.format?.type === "json_schema" ? user.format : undefined
}

/** The tool the model answers with: its arguments are checked against the schema like any tool's. */
export function structuredOutputTool(format: JsonSchemaFormat): ToolInfo {
  return define(STRUCTURED_OUTPUT_TOOL, {
    description: DESCRIPTION,
    fileChanges: "none",
    parameters: formatSchema(format),
    // The model is shown the schema exactly as the host wrote it.
    inputSchema: () => format.schema,
    execute: async () => ({ title: "Structured output", output: "Answer recorded.", metadata: {} }),
  })
}

/**
 * What a structured turn comes to with `message`, its newest answer (already in `history`):
 * `structured` once a StructuredOutput call completed, an error once the model answered in
 * plain text, failed the schema more than `retries` times or used up the agent's steps, else
 * nothing (the turn goes on).
 * Read from the stored parts alone, so a run after a crash reaches the same verdict.
 */
export function structuredVerdict(
  format: JsonSchemaFormat,
  history: readonly WithParts[],
  user: WithParts,
  message: WithParts,
  /** The agent's step limit is reached: no further call can give the answer. */
  lastStep: boolean,
): { structured: unknown } | { error: StructuredOutputError["data"] } | undefined {
  if (message.info.role !== "assistant" || message.info.error) return undefined
  const answer = message.parts.find(
    (part): part is ToolPart =>
      part.type === "tool" && part.tool === STRUCTURED_OUTPUT_TOOL && part.state.status === "completed",
  )
  if (answer) return { structured: answer.state.input }
  const retries = format.retries ?? DEFAULT_STRUCTURED_RETRIES
  const failures = failedAnswers(history, user.info.id)
  if (failures.length > retries) {
    const why = failures.at(-1)!
    return {
      error: {
        message: `The model's structured output failed its schema ${failures.length} times: ${why}`,
        retries,
      },
    }
  }
  if (isFinal(message, user))
    return {
      error: { message: `The model answered without calling the ${STRUCTURED_OUTPUT_TOOL} tool.`, retries },
    }
  if (lastStep)
    return {
      error: { message: "The model gave no valid structured answer within the agent's steps.", retries },
    }
  return undefined
}

/** The errors of the turn's failed StructuredOutput calls, oldest first. */
function failedAnswers(history: readonly WithParts[], userID: string): string[] {
  const errors: string[] = []
  for (let index = history.length - 1; index >= 0; index--) {
    const { info, parts } = history[index]!
    if (info.id <= userID) break
    const failed = parts.flatMap((part) =>
      part.type === "tool" && part.tool === STRUCTURED_OUTPUT_TOOL && part.state.status === "error"
        ? [part.state.error]
        : [],
    )
    errors.unshift(...failed)
  }
  return errors
}

export function structuredOutputError(data: StructuredOutputError["data"]) {
  return new StructuredOutputError(data).toObject()
}

/**
 * A structured turn ends when its answer settles (see structuredVerdict): the valid object is
 * stored on the message as `structured`, or the message fails with a StructuredOutputError.
 * Checked (steps.ts) before the exit rule, so a run after a crash between the call and this
 * write ends the turn the same way.
 */
export async function settleStructured(
  deps: LoopDeps,
  tracked: RunHistory,
  user: WithParts,
  last: WithParts,
  lastStep = false,
): Promise<WithParts | undefined> {
  const format = structuredFormat(user.info as User)
  if (!format || last.info.role !== "assistant" || last.info.structured !== undefined) return undefined
  const verdict = structuredVerdict(format, tracked.messages, user, last, lastStep)
  if (!verdict) return undefined
  const info = last.info
  const settled =
    "error" in verdict
      ? await failAnswer(deps, info, structuredOutputError(verdict.error))
      : await settleAnswer(deps, { ...info, structured: verdict.structured as Assistant["structured"] })
  tracked.replace(last, settled)
  return settled
}
