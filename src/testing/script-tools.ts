import type { InferSchema } from "ai"
import type { z } from "zod"
import type { AITool } from "../tool/from-ai.js"
import type { ToolInfo } from "../tool/tool.js"

/** The tools a script can be typed from: `Tool.define` tools, or an AI SDK tool set (`{ name: tool }`). */
export type ScriptTools = readonly ToolInfo[] | Record<string, AITool>

/** What a scripted call carries besides the tool and its input. */
export type ToolCallOptions = {
  /** The call's ID; default `call-<index of the step>`. */
  id?: string
  /**
   * The call names a tool the runtime lacks on purpose, to test how the loop handles a model's
   * mistake: the scripted model plays it instead of failing with ScriptedToolUnknownError.
   */
  unavailable?: boolean
}

/**
 * Each tool of `Tools` as `{ name, input }`: a `Tool.define` tool's id and the input its zod
 * parameters accept, an AI SDK tool's key in the set and the input of its schema.
 */
export type ScriptedCall<Tools> = Tools extends readonly (infer Item)[]
  ? Item extends ToolInfo<infer Parameters>
    ? { name: Item["id"]; input: z.input<Parameters> }
    : never
  : { [Name in keyof Tools & string]: { name: Name; input: AIToolInput<Tools[Name]> } }[keyof Tools & string]

type AIToolInput<Tool> = Tool extends { inputSchema: infer Schema } ? InferSchema<Schema> : unknown

/**
 * The arguments of `say.toolCall`: any name and input for an untyped script (`Tools` undefined),
 * else one of the tools' names with that tool's input. Only a tool whose name is a literal type
 * can be told apart from the others: a tool whose id is a plain `string` lets any name through,
 * with any input.
 */
export type ToolCallArgs<Tools> = undefined extends Tools
  ? [toolName: string, input: unknown, options?: ToolCallOptions]
  : ArgsOf<ScriptedCall<Tools>>

type ArgsOf<Call> = Call extends { name: infer Name; input: infer Input }
  ? string extends Name
    ? [toolName: string, input: unknown, options?: ToolCallOptions]
    : [toolName: Name, input: Input, options?: ToolCallOptions]
  : never
