import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { OutputFormat } from "../message/format.js"
import { ModelRef } from "../message/part.js"

const PromptPart = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("text"),
    text: z.string(),
    synthetic: z.boolean().optional(),
    ignored: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal("file"),
    mime: z.string().min(1),
    url: z.string().min(1),
    filename: z.string().optional(),
  }),
  z.strictObject({ type: z.literal("agent"), name: z.string().min(1) }),
  z.strictObject({
    type: z.literal("subtask"),
    prompt: z.string().min(1),
    description: z.string(),
    agent: z.string().min(1),
    /** The model of the step handing the task over, and the sub-agent's unless it has its own; default: this prompt's. */
    model: ModelRef.optional(),
  }),
])
export type PromptPart = z.infer<typeof PromptPart>

export const PromptInput = z.strictObject({
  sessionID: id("session"),
  /** The user message's ID; by default a new one that sorts after everything in the session. */
  messageID: id("message").optional(),
  model: ModelRef.optional(),
  agent: z.string().min(1).optional(),
  /** Store the message without running the loop. */
  noReply: z.boolean().optional(),
  /** Extra system text for this message. */
  system: z.string().optional(),
  /** Per-tool switches for this message: `{ bash: false }`. */
  tools: z.record(z.string(), z.boolean()).optional(),
  variant: z.string().optional(),
  /** `{ type: "json_schema", schema }`: the answer is an object matching the schema (see format.ts). */
  format: OutputFormat.optional(),
  parts: z.array(PromptPart).min(1),
})
/**
 * A prompt as callers give it: the schema's fields (what an HTTP body can carry), and `signal`,
 * whose abort cancels the run once every caller waiting on it has aborted (see intake.ts).
 */
export type PromptInput = z.input<typeof PromptInput> & { signal?: AbortSignal | undefined }
