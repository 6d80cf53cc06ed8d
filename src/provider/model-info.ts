import { z } from "zod"

/** USD per million tokens. */
const Price = z.number().nonnegative()

const Prices = z.object({
  input: Price,
  output: Price,
  /** Prompt caching's prices; a model without prompt caching may leave them out (0). */
  cache: z.object({ read: Price, write: Price }).default({ read: 0, write: 0 }),
})

const TokenCount = z.number().int().nonnegative()

/**
 * What agentloop needs to know about a model: its window (for compaction), its prices (for cost
 * accounting) and what it can do (tools, attachments, reasoning, temperature).
 */
export const ModelInfo = z.object({
  providerID: z.string().min(1),
  id: z.string().min(1),
  name: z.string(),
  /**
   * The model's window. Absent (or a context of 0) when unknown: then compaction waits for the
   * provider's context-overflow error instead of compacting ahead of it.
   */
  limit: z
    .object({
      context: TokenCount,
      /** Some providers cap the prompt below `context - output`; compaction honours this when set. */
      input: TokenCount.optional(),
      /** 0 when unknown: compaction then reserves 32,000 tokens for the answer. */
      output: TokenCount,
    })
    .optional(),
  /**
   * Prices. Absent when unknown: steps then cost 0 and their messages carry `costUnknown: true`, so
   * that an unpriced model is never mistaken for a free one.
   */
  cost: Prices.extend({
    /** Prices that apply to the whole request once its prompt exceeds 200,000 tokens. */
    over200K: Prices.optional(),
  }).optional(),
  capabilities: z.object({
    reasoning: z.boolean(),
    toolcall: z.boolean(),
    attachment: z.boolean(),
    temperature: z.boolean(),
  }),
})
export type ModelInfo = z.infer<typeof ModelInfo>
/** ModelInfo as a host writes it (`createProvider`'s `info`): `cost.cache` may be left out. */
export type ModelInfoInput = z.input<typeof ModelInfo>
