import { asSchema, InvalidToolInputError, JSONParseError, NoSuchToolError, type ToolSet } from "ai"
import type { StreamInput } from "../processor/stream-input.js"
import type { ToolInfo } from "../tool/tool.js"
import type { SpecTool, SpecToolChoice } from "./types.js"

type ToolOptions = { providerOptions?: Record<string, Record<string, unknown>> }

/**
 * The tools of one call as the spec's tool definitions, as `streamText` sends them. Our own
 * tools' schemas come from `schemaOf`, which converts each tool once; other AI SDK tools'
 * schemas are read from the tool.
 */
export async function specTools(
  tools: ToolSet,
  request: Pick<StreamInput, "tools" | "toolChoice">,
  schemaOf: (info: ToolInfo) => unknown,
): Promise<{ tools?: SpecTool[]; toolChoice?: SpecToolChoice }> {
  const entries = Object.entries(tools)
  const choice = request.toolChoice
  if (entries.length === 0) return choice === "none" ? { toolChoice: { type: "none" } } : {}
  const ours = new Map((request.tools ?? []).map((info) => [info.id, info]))
  const definitions: SpecTool[] = []
  for (const [name, tool] of entries) {
    if (tool.type === "provider") {
      const { id, args } = tool as unknown as { id: string; args: Record<string, unknown> }
      definitions.push({ type: "provider", id, name, args })
      continue
    }
    const info = ours.get(name)
    const { providerOptions } = tool as ToolOptions
    const description = describe(tool.description)
    definitions.push({
      type: "function",
      name,
      ...(description === undefined ? {} : { description }),
      inputSchema: info ? await schemaOf(info) : await asSchema(tool.inputSchema).jsonSchema,
      ...(providerOptions === undefined ? {} : { providerOptions }),
    })
  }
  const toolChoice: SpecToolChoice =
    choice == null
      ? { type: "auto" }
      : typeof choice === "string"
        ? { type: choice }
        : { type: "tool", toolName: choice.toolName }
  return { tools: definitions, toolChoice }
}

/** ai 7 lets a tool describe itself from its call context; a step here has none to give. */
function describe(description: unknown): string | undefined {
  if (typeof description === "function")
    return (description as (options: { context: undefined }) => string)({ context: undefined })
  return typeof description === "string" ? description : undefined
}

/** A model's tool call with its input read, or why it cannot run (the model is told). */
export type ParsedCall =
  | { ok: true; input: unknown }
  | { ok: false; input: unknown; error: NoSuchToolError | InvalidToolInputError }

/**
 * The input of a tool call, parsed as `streamText` does: empty means `{}`; the tool must exist.
 * The schema check is the tool's own (ours validate in `execute`, with a message for the model).
 */
export function parseCall(tools: ToolSet, call: { toolName: string; input: string }): ParsedCall {
  const parsed = parseInput(call.input)
  if (!Object.hasOwn(tools, call.toolName))
    return {
      ok: false,
      input: parsed.ok ? parsed.value : call.input,
      error: new NoSuchToolError({ toolName: call.toolName, availableTools: Object.keys(tools) }),
    }
  if (!parsed.ok)
    return {
      ok: false,
      input: call.input,
      error: new InvalidToolInputError({
        toolName: call.toolName,
        toolInput: call.input,
        cause: parsed.error,
      }),
    }
  return { ok: true, input: parsed.value }
}

function parseInput(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  if (text.trim() === "") return { ok: true, value: {} }
  try {
    // The SDK refuses prototype keys in model output; so do we, but only scans when they appear.
    const risky = text.includes("__proto__") || text.includes("constructor")
    return { ok: true, value: risky ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text) }
  } catch (cause) {
    return { ok: false, error: new JSONParseError({ text, cause }) }
  }
}

function refusePrototypeKeys(this: unknown, key: string, value: unknown): unknown {
  if (key === "__proto__") throw new SyntaxError("Object contains forbidden prototype property")
  if (
    key === "constructor" &&
    typeof value === "object" &&
    value !== null &&
    Object.hasOwn(value, "prototype")
  )
    throw new SyntaxError("Object contains forbidden prototype property")
  return value
}
