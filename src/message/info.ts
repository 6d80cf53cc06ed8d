import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { FileDiff } from "../snapshot/schema.js"
import { AssistantError } from "./errors.js"
import { OutputFormat } from "./format.js"
import { ModelRef, Part, Tokens } from "./part.js"

const Base = z.object({
  id: id("message"),
  sessionID: id("session"),
})

/**
 * A user message: the prompt's agent and model, the tools it enables or disables, an extra system
 * prompt, and the output format asked for. Its content is in its parts.
 */
export const User = Base.extend({
  role: z.literal("user"),
  time: z.object({ created: z.number() }),
  agent: z.string(),
  model: ModelRef,
  system: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  variant: z.string().optional(),
  /** How the answer is shaped; absent means text. */
  format: OutputFormat.optional(),
  /** What the turn this message started changed in the files, when a Snapshot is configured. */
  summary: z.object({ diffs: z.array(FileDiff) }).optional(),
})
export type User = z.infer<typeof User>

/**
 * An assistant message: one turn of the model's answer, with the agent and model that gave it, the
 * totals of cost and tokens over its steps, why it finished, and the error it ended with, if any.
 * `summary` marks a compaction summary.
 */
export const Assistant = Base.extend({
  role: z.literal("assistant"),
  time: z.object({ created: z.number(), completed: z.number().optional() }),
  parentID: id("message"),
  agent: z.string(),
  providerID: z.string(),
  modelID: z.string(),
  path: z.object({ cwd: z.string(), root: z.string() }),
  cost: z.number().nonnegative(),
  /** The model had no prices: `cost` is 0 without the answer being free. */
  costUnknown: z.literal(true).optional(),
  tokens: Tokens,
  finish: z.string().optional(),
  error: AssistantError.optional(),
  summary: z.boolean().optional(),
  /** The answer to a prompt with `format: { type: "json_schema" }`, validated against its schema. */
  structured: z.json().optional(),
})
export type Assistant = z.infer<typeof Assistant>

/** A message, user or assistant, by `role`, without its parts. */
export const Info = z.discriminatedUnion("role", [User, Assistant])
export type Info = z.infer<typeof Info>

/** `Info` under the name files outside the `MessageV2` namespace's folder import it by. */
export { Info as MessageInfo }

/** A message with its parts in order: what `runtime.session.messages` returns. */
export const WithParts = z.object({ info: Info, parts: z.array(Part) })
export type WithParts = z.infer<typeof WithParts>
