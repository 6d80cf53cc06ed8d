import { asSchema, type FlexibleSchema } from "ai"
import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import {
  type Attachment,
  define,
  type Info,
  type JSONSchemaObject,
  type ProviderTool,
  type Result,
  TOOL_ID,
} from "./tool.js"

/**
 * An AI SDK tool as `tool()`, `dynamicTool()` or an MCP client's `tools()` make it, described by
 * the fields agentloop uses, so that tools of ai 6 and ai 7 both fit.
 */
export type AITool = {
  readonly description?: unknown
  /** A zod schema, a Standard Schema, or `jsonSchema(...)` (with or without `validate`). */
  readonly inputSchema: unknown
  readonly execute?: unknown
  readonly type?: string
  /** A provider tool's id (`anthropic.web_search_20250305`) and settings. */
  readonly id?: unknown
  readonly args?: unknown
}

/** How `Tool.fromAI` adapts an AI SDK tool: the permission each call asks. */
export type FromAIOptions = {
  /** The permission each call asks, with pattern `*`. Default: the tool's id. */
  permission?: string
}

type Execute = (
  input: unknown,
  options: { toolCallId: string; messages: []; abortSignal: AbortSignal },
) => unknown

/**
 * An AI SDK tool as a runtime tool. The model is shown the tool's own JSON schema, the
 * arguments are checked with its own validation (a failure goes back to the model as the call's
 * error), and every call first asks `options.permission` (default: the id), like any tool, so
 * rules such as `{ mcp_*: "ask" }` hold. The tool's `execute` gets the call's ID and abort
 * signal, and no messages (`messages: []`). What it returns becomes the result: a string as it
 * is; an MCP tool result as its text, with images as attachments (`isError` fails the call);
 * anything else as JSON. A tool that streams its output (an async iterable) gives its last value.
 *
 * A provider tool (`type: "provider"`, e.g. `anthropic.tools.webSearch_20250305()`) is offered to
 * the model as that provider tool. Without `execute` the provider runs it: nothing runs here and
 * no permission is asked; its call and result come in the model's stream and are stored as any.
 */
export function fromAI(id: string, tool: AITool, options: FromAIOptions = {}): Info {
  const what = `tool ${JSON.stringify(id)}`
  if (typeof tool !== "object" || tool === null) throw refused(what, "is not an AI SDK tool")
  const provider = providerOf(what, tool)
  if (typeof tool.execute !== "function" && !provider?.executed)
    throw refused(what, "has no execute function (a client-side tool cannot run here)")
  const permission = options.permission ?? id
  const native = tool.inputSchema instanceof z.ZodType
  const schema = native ? undefined : asSchema(tool.inputSchema as FlexibleSchema<unknown>)
  return define(id, {
    description: describe(tool.description) ?? id,
    parameters: native ? (tool.inputSchema as z.ZodType) : validated(schema!),
    ...(schema
      ? { inputSchema: () => schema.jsonSchema as JSONSchemaObject | PromiseLike<JSONSchemaObject> }
      : {}),
    ...(provider ? { provider } : {}),
    async execute(args, context) {
      if (typeof tool.execute !== "function")
        throw new Error(`The ${id} tool is run by the model's provider, not here`)
      const execute = tool.execute as Execute
      await context.ask({ permission, patterns: ["*"], always: ["*"], metadata: { input: args } })
      const output = await lastValue(
        execute(args, { toolCallId: context.callID, messages: [], abortSignal: context.abort }),
      )
      return toResult(id, output)
    },
  })
}

/** A provider tool's id and settings; executed by the provider when it brings no `execute`. */
function providerOf(what: string, tool: AITool): ProviderTool | undefined {
  if (tool.type !== "provider") return undefined
  if (typeof tool.id !== "string" || !/^[^.]+\..+/.test(tool.id))
    throw refused(what, 'is a provider tool without an id of the form "provider.name"')
  const args =
    typeof tool.args === "object" && tool.args !== null ? (tool.args as Record<string, unknown>) : {}
  return { id: tool.id as ProviderTool["id"], args, executed: typeof tool.execute !== "function" }
}

/**
 * Every tool of an AI SDK tool set (an MCP client's `tools()`, say) as runtime tools, each with
 * id `prefix + name` and asking its own id's permission unless `permission` says otherwise.
 */
export function fromAISet(
  tools: Record<string, AITool>,
  options: { prefix?: string; permission?: string | ((id: string) => string) } = {},
): Info[] {
  return Object.entries(tools).map(([name, tool]) => {
    const id = `${options.prefix ?? ""}${name}`
    if (!TOOL_ID.test(id))
      throw refused(
        `tool set key ${JSON.stringify(name)}`,
        `makes the id ${JSON.stringify(id)}: use 1-64 letters, digits, _ or -`,
      )
    const permission = typeof options.permission === "function" ? options.permission(id) : options.permission
    return fromAI(id, tool, permission === undefined ? {} : { permission })
  })
}

/** A zod schema that checks a value with an AI SDK schema's own validation, when it has one. */
function validated(schema: ReturnType<typeof asSchema>): z.ZodType {
  return z.unknown().transform(async (value, context) => {
    if (!schema.validate) return value
    const result = await schema.validate(value)
    if (result.success) return result.value
    context.addIssue({ code: "custom", message: result.error.message })
    return z.NEVER
  })
}

/** ai 7 lets a tool describe itself from its call context; there is none to give here. */
function describe(description: unknown): string | undefined {
  if (typeof description === "function") return String((description as (options: object) => unknown)({}))
  return typeof description === "string" && description.length > 0 ? description : undefined
}

async function lastValue(output: unknown): Promise<unknown> {
  const value = await output
  if (value === null || typeof value !== "object" || !(Symbol.asyncIterator in value)) return value
  let last: unknown
  for await (const item of value as AsyncIterable<unknown>) last = item
  return last
}

type McpContent = { type: string; text?: string; data?: string; mimeType?: string }

function toResult(id: string, output: unknown): Result {
  if (typeof output === "string") return { title: id, output, metadata: {} }
  if (isMcpResult(output)) {
    const text = output.content.flatMap((part) =>
      part.type === "text" && part.text !== undefined ? [part.text] : [],
    )
    if (output.isError) throw new Error(text.join("\n") || `The ${id} tool failed`)
    const attachments: Attachment[] = output.content.flatMap((part) =>
      part.type === "image" && part.data !== undefined && part.mimeType !== undefined
        ? [{ mime: part.mimeType, url: `data:${part.mimeType};base64,${part.data}` }]
        : [],
    )
    return {
      title: id,
      output: text.join("\n"),
      metadata: output.structuredContent === undefined ? {} : { structuredContent: output.structuredContent },
      ...(attachments.length > 0 ? { attachments } : {}),
    }
  }
  return { title: id, output: output === undefined ? "" : JSON.stringify(output), metadata: {} }
}

function isMcpResult(
  value: unknown,
): value is { content: McpContent[]; isError?: boolean; structuredContent?: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content) &&
    (value as { content: unknown[] }).content.every(
      (part) => typeof part === "object" && part !== null && typeof (part as McpContent).type === "string",
    )
  )
}

function refused(what: string, problem: string): InvalidInputError {
  return new InvalidInputError({
    message: `Invalid ${what}: ${problem}`,
    issues: [{ path: what, message: problem }],
  })
}
