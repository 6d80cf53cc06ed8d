import type { JSONValue } from "ai"
import { z } from "zod"
import { parseInput } from "../error/invalid-input.js"
import type { FilePart } from "../message/part.js"
import type { Action, Ruleset } from "../schema/permission.js"
import { PROTO_KEY, PROTO_KEY_MESSAGE } from "../util/own-names.js"
import type { DataPath } from "./data-path.js"

/** What a running tool can see and do. */
export type Context = {
  sessionID: string
  /** The assistant message whose step called the tool. */
  messageID: string
  /**
   * The user message the step answers, the same for every step of a turn: for what a tool does
   * once per turn (the `read` tool attaches a folder's instructions once per turn). Absent outside
   * a turn's step (a call resumed after a restart, a user's shell command, a context built by hand).
   */
  turnID?: string
  callID: string
  agent: string
  /**
   * The session's working directory (the runtime's `directory`): resolve relative paths against
   * it, as `ask({ paths: true })` does. Set by the runtime; a context built by hand may omit it.
   */
  directory?: string
  /** Aborts when the session is cancelled or the step is abandoned. */
  abort: AbortSignal
  /** Updates the running tool part (title, metadata) so a UI can show progress. */
  metadata(update: { title?: string; metadata?: Record<string, unknown> }): Promise<void>
  /**
   * Asks permission under the agent's and session's rules; resolves when allowed, throws
   * Permission.DeniedError, RejectedError or CorrectedError otherwise.
   */
  ask(request: {
    permission: string
    patterns: string[]
    always?: string[]
    metadata?: Record<string, unknown>
    /**
     * `patterns` and `always` are file paths: each is resolved against `directory` into the
     * pattern the rules see (`Permission.pathPattern`), and a path outside the directory asks
     * `external_directory` first, as the built-in file tools do.
     */
    paths?: boolean
  }): Promise<void>
  /**
   * What the rules in force for this call (the agent's, the runtime's and the session's, as `ask`
   * uses them) say of `permission` for `pattern`, without asking anyone: the last matching rule's
   * action, "ask" when none matches. "ask" does not mean a human will be asked: an earlier
   * "always" approval may cover the pattern, which only `ask` consults. For a tool that leaves
   * out what the rules deny instead of failing the whole call (grep and files the `read` rules
   * deny), and that gathers what is left to ask into one request. Absent from contexts a host
   * builds without it; a tool then asks.
   */
  evaluate?(permission: string, pattern: string): Promise<Action>
  /**
   * Tells the runtime that the call is about to change (write, create or delete) the file at
   * `path`: absolute, or relative to `directory`. Call it before the change, so that a write that
   * fails half way still counts. A tool whose `fileChanges` is "declared" must call it for every
   * file it changes: the step's snapshot then records those files without scanning the tree.
   * Absent from contexts a host builds without it.
   */
  willChange?(path: string): void
  /**
   * Where the runtime's ports keep their own data (see `DataPath`): the call must neither read
   * nor change these paths, nor let a command it runs reach them. Set by the runtime for its
   * tools; absent from contexts a host builds without it.
   */
  protectedPaths?: readonly DataPath[]
}

/** A file a tool returns besides its text output, e.g. an image it read. */
export type Attachment = Pick<FilePart, "mime" | "url" | "filename">

/** A call's result as the runtime stores it: what any `execute` return becomes. */
export type Result = {
  title: string
  output: string
  metadata: Record<string, unknown>
  attachments?: Attachment[]
}

/**
 * What `execute` may return: text (the output as it is), any JSON value (the output is its
 * `JSON.stringify`, and the model is sent the value itself), or the full form, whose title
 * (default "") and metadata (default `{}`) may be left out. An object is the full form when its
 * `output` is a string, its `title` (if any) a string, its `metadata` (if any) an object, its
 * `attachments` (if any) an array, and it has no other key; any other object is a JSON value.
 */
export type ExecuteResult =
  | string
  | JSONValue
  | { title?: string; output: string; metadata?: Record<string, unknown>; attachments?: Attachment[] }

/**
 * A tool the model's provider defines (Anthropic's or OpenAI's web search, code execution): the
 * model is told of it as that provider tool (`id`, `args`), as the AI SDK does, not by a schema.
 * `executed`: the provider runs it itself and sends the result in its stream; `execute` is then
 * never called and no permission is asked (the rules can still switch it off).
 */
export type ProviderTool = {
  id: `${string}.${string}`
  args: Record<string, unknown>
  executed: boolean
}

/** A JSON schema as a plain object. */
export type JSONSchemaObject = Record<string, unknown>

/**
 * A tool: its ID, the description the model reads, the zod schema of its arguments and what it does
 * (`execute`). Make one with `Tool.define`, which checks the ID and schema.
 */
export type Info<Parameters extends z.ZodType = z.ZodType, Returns extends ExecuteResult = ExecuteResult> = {
  id: string
  description: string
  /** Checks the model's arguments (which may be async); what it outputs is what `execute` gets. */
  parameters: Parameters
  /**
   * The JSON schema the model is shown, when the tool brings its own (tools from the AI SDK,
   * `Tool.fromAI`); default: `parameters` converted with `z.toJSONSchema`. Read once per tool.
   */
  inputSchema?: () => JSONSchemaObject | PromiseLike<JSONSchemaObject>
  /** Set for a tool the model's provider defines; see `ProviderTool`. */
  provider?: ProviderTool
  /**
   * What the tool does to the files of the directory, so that snapshots need not scan it: "none"
   * (it changes no file), "declared" (it calls `context.willChange` for each file it changes).
   * Left out: it may change any file (commands, MCP and most host tools), and the step it runs
   * in ends with a scan of the whole tree. See docs/snapshot.md.
   */
  fileChanges?: FileChanges
  /**
   * The description the model reads under the rules of a step, when it depends on them: `task`
   * lists the sub-agents the rules let it start, `skill` the skills they allow. Called for each
   * step; `description` is what lists of tools show.
   */
  describe?(input: { ruleset: Ruleset }): string
  /**
   * Whether the tool is offered to a model; absent: to every model. For tools made for some
   * models (`apply_patch` for OpenAI's GPT-5 models, in place of `edit` and `write`). `modelID`
   * is the model's ID as its provider names it (the AI SDK model's `modelId`, e.g. `gpt-5`), not
   * the runtime's alias for it; `providerID` is the runtime's.
   */
  offered?(model: { providerID: string; modelID: string }): boolean
  execute(args: z.output<Parameters>, context: Context): Promise<Returns>
}

/** `Info` under the name files outside the `Tool` namespace's folder import it by. */
export type { Info as ToolInfo }

/** See `Info.fileChanges`. */
export type FileChanges = "none" | "declared"

/** What a tool's id may be: the characters every provider accepts in a tool name. */
export const TOOL_ID = /^[a-zA-Z0-9_-]{1,64}$/

const isFunction = (value: unknown) => typeof value === "function"

const Definition = z.object({
  id: z
    .string()
    .regex(TOOL_ID, "use 1-64 letters, digits, _ or -")
    // Tool sets are plain objects keyed by id (the AI SDK's ToolSet).
    .refine((id) => id !== PROTO_KEY, PROTO_KEY_MESSAGE),
  description: z.string().min(1),
  parameters: z.custom<z.ZodType>((value) => value instanceof z.ZodType, {
    message: "expected a zod schema",
  }),
  inputSchema: z
    .custom<NonNullable<Info["inputSchema"]>>((value) => typeof value === "function", {
      message: "expected a function returning a JSON schema",
    })
    .optional(),
  provider: z
    .object({
      id: z.custom<ProviderTool["id"]>((value) => typeof value === "string" && /^[^.]+\..+/.test(value), {
        message: 'expected "provider.name"',
      }),
      args: z.record(z.string(), z.unknown()),
      executed: z.boolean(),
    })
    .optional(),
  fileChanges: z.enum(["none", "declared"]).optional(),
  describe: z
    .custom<NonNullable<Info["describe"]>>(isFunction, { message: "expected a function" })
    .optional(),
  offered: z.custom<NonNullable<Info["offered"]>>(isFunction, { message: "expected a function" }).optional(),
  execute: z.custom<Info["execute"]>((value) => typeof value === "function", {
    message: "expected a function",
  }),
})

/** Defines a tool: the model sees its id, description and parameters' JSON schema. */
export function define<const Id extends string, Parameters extends z.ZodType, Returns extends ExecuteResult>(
  id: Id,
  definition: Omit<Info<Parameters, Returns>, "id">,
): Info<Parameters, Returns> & { id: Id } {
  parseInput(`tool ${JSON.stringify(id)}`, Definition, { ...definition, id })
  return { ...definition, id }
}
