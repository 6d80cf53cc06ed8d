import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { APIError } from "./errors.js"

const Base = z.object({
  id: id("part"),
  sessionID: id("session"),
  messageID: id("message"),
})

const Metadata = z.record(z.string(), z.unknown())

/** Tokens a step or a message used: input, output, reasoning, and cache reads and writes. */
export const Tokens = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  reasoning: z.number().nonnegative(),
  cache: z.object({ read: z.number().nonnegative(), write: z.number().nonnegative() }),
})
export type Tokens = z.infer<typeof Tokens>

/**
 * Text the user wrote or the model answered. `synthetic` marks text the runtime added (not typed
 * by the user); `ignored` text is kept but not sent to the model.
 */
export const TextPart = Base.extend({
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: Metadata.optional(),
})
export type TextPart = z.infer<typeof TextPart>

/** The model's reasoning, as the provider streamed it, with when it started and ended. */
export const ReasoningPart = Base.extend({
  type: z.literal("reasoning"),
  text: z.string(),
  time: z.object({ start: z.number(), end: z.number().optional() }),
  metadata: Metadata.optional(),
})
export type ReasoningPart = z.infer<typeof ReasoningPart>

const TextRange = z.object({ value: z.string(), start: z.number().int(), end: z.number().int() })

/** Where a file part came from when the user referenced it in their text. */
export const FilePartSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("file"), path: z.string(), text: TextRange }),
  z.object({
    type: z.literal("symbol"),
    path: z.string(),
    name: z.string(),
    kind: z.number().int(),
    range: z.object({
      start: z.object({ line: z.number(), character: z.number() }),
      end: z.object({ line: z.number(), character: z.number() }),
    }),
    text: TextRange,
  }),
  z.object({ type: z.literal("resource"), clientName: z.string(), uri: z.string(), text: TextRange }),
])
export type FilePartSource = z.infer<typeof FilePartSource>

/**
 * A file attached to a message, or returned by a tool: its MIME type and a URL (often a `data:`
 * URL), and where it came from when the user referenced it.
 */
export const FilePart = Base.extend({
  type: z.literal("file"),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
  source: FilePartSource.optional(),
})
export type FilePart = z.infer<typeof FilePart>

/** A tool call whose input is still streaming in: `raw` is the text so far. */
export const ToolStatePending = z.object({
  status: z.literal("pending"),
  input: z.record(z.string(), z.unknown()),
  raw: z.string(),
})
export type ToolStatePending = z.infer<typeof ToolStatePending>

/** A tool call that has its input and is running; a tool may set a title and metadata as it goes. */
export const ToolStateRunning = z.object({
  status: z.literal("running"),
  input: z.record(z.string(), z.unknown()),
  title: z.string().optional(),
  metadata: Metadata.optional(),
  time: z.object({ start: z.number() }),
})
export type ToolStateRunning = z.infer<typeof ToolStateRunning>

/**
 * A tool call that returned: its output as the model reads it, title, metadata and attachments.
 * `time.compacted` is set once pruning replaced the output to save context.
 */
export const ToolStateCompleted = z.object({
  status: z.literal("completed"),
  input: z.record(z.string(), z.unknown()),
  output: z.string(),
  /**
   * The JSON value the tool returned, when `output` is its JSON text: the model is sent the value.
   * A provider-executed tool's result is kept so, as the provider reads it back.
   */
  structured: z.json().optional(),
  title: z.string(),
  metadata: Metadata,
  attachments: z.array(FilePart).optional(),
  time: z.object({ start: z.number(), end: z.number(), compacted: z.number().optional() }),
})
export type ToolStateCompleted = z.infer<typeof ToolStateCompleted>

/** A tool call that failed or was refused: `error` is the message the model is shown. */
export const ToolStateError = z.object({
  status: z.literal("error"),
  input: z.record(z.string(), z.unknown()),
  error: z.string(),
  metadata: Metadata.optional(),
  /**
   * Set when the call was refused rather than failed: by the user (a reply), by the host (its
   * handler's answer, a timeout, a failed handler) or by a rule (a deny rule, `nonInteractive`).
   */
  refusedBy: z.enum(["user", "host", "rule"]).optional(),
  time: z.object({ start: z.number(), end: z.number() }),
})
export type ToolStateError = z.infer<typeof ToolStateError>

/**
 * Where a tool call is, by `status`: pending, running, completed or error. A call ends completed or
 * error; one a crash interrupted is closed as an error when the session resumes.
 */
export const ToolState = z.discriminatedUnion("status", [
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError,
])
export type ToolState = z.infer<typeof ToolState>

/** A tool call the model made, under its `callID`, with the state it is in. */
export const ToolPart = Base.extend({
  type: z.literal("tool"),
  callID: z.string(),
  tool: z.string(),
  state: ToolState,
  metadata: Metadata.optional(),
})
export type ToolPart = z.infer<typeof ToolPart>

/**
 * The start of one model call (a step) in an assistant message, with the snapshot taken before it
 * when a `Snapshot` is configured.
 */
export const StepStartPart = Base.extend({
  type: z.literal("step-start"),
  snapshot: z.string().optional(),
})
export type StepStartPart = z.infer<typeof StepStartPart>

/**
 * The end of a step: why the model stopped, what it cost and the tokens it used, and the snapshot
 * after it.
 */
export const StepFinishPart = Base.extend({
  type: z.literal("step-finish"),
  reason: z.string(),
  snapshot: z.string().optional(),
  cost: z.number().nonnegative(),
  tokens: Tokens,
})
export type StepFinishPart = z.infer<typeof StepFinishPart>

/** A snapshot of the files taken during a step, by the configured `Snapshot`. */
export const SnapshotPart = Base.extend({
  type: z.literal("snapshot"),
  snapshot: z.string(),
})
export type SnapshotPart = z.infer<typeof SnapshotPart>

/** The files a step changed, against the snapshot `hash` taken before it: what `revert` restores. */
export const PatchPart = Base.extend({
  type: z.literal("patch"),
  hash: z.string(),
  files: z.array(z.string()),
})
export type PatchPart = z.infer<typeof PatchPart>

/** A mention of an agent in the user's text (`@name`), with where it appears. */
export const AgentPart = Base.extend({
  type: z.literal("agent"),
  name: z.string(),
  source: TextRange.optional(),
})
export type AgentPart = z.infer<typeof AgentPart>

/** A model by provider and model ID, as in `anthropic/claude-sonnet-4-5`. */
export const ModelRef = z.object({ providerID: z.string().min(1), modelID: z.string().min(1) })
export type ModelRef = z.infer<typeof ModelRef>

/**
 * A request in a user message to run a prompt as a subtask on another agent (a child session),
 * as a `subtask: true` command makes.
 */
export const SubtaskPart = Base.extend({
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: ModelRef.optional(),
})
export type SubtaskPart = z.infer<typeof SubtaskPart>

/** A failed model call the loop is retrying: the attempt number and the API error that caused it. */
export const RetryPart = Base.extend({
  type: z.literal("retry"),
  attempt: z.number().int().positive(),
  error: APIError.Schema,
  time: z.object({ created: z.number() }),
})
export type RetryPart = z.infer<typeof RetryPart>

/**
 * Marks a user message that asks for compaction: `auto` when the runtime asked for it, `overflow`
 * when the context overflowed; `tailStartID` is the first message kept verbatim after the summary.
 */
export const CompactionPart = Base.extend({
  type: z.literal("compaction"),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
  tailStartID: id("message").optional(),
})
export type CompactionPart = z.infer<typeof CompactionPart>

/** Any part of a message, by `type`. Parse stored or received parts with it; narrow on `type`. */
export const Part = z.discriminatedUnion("type", [
  TextPart,
  ReasoningPart,
  FilePart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  SnapshotPart,
  PatchPart,
  AgentPart,
  SubtaskPart,
  RetryPart,
  CompactionPart,
])
export type Part = z.infer<typeof Part>
