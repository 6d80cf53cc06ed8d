import { z } from "zod"
import { schema as id } from "../id/identifier.js"
import { ModelRef, Tokens } from "../message/part.js"
import { Ruleset } from "../permission/schema.js"
import { FileDiff } from "../snapshot/schema.js"

/**
 * A stored session: its ID, slug, working directory, parent (for a child session), title, the
 * version that created it, times (created, updated, archived), its own permission rules, a summary
 * of the files its turns changed, and the revert in progress, if any. What `runtime.session.get`, `list` and the session events carry.
 */
export const Info = z.object({
  id: id("session"),
  slug: z.string(),
  directory: z.string(),
  parentID: id("session").optional(),
  title: z.string(),
  /** The agentloop version that created the session. */
  version: z.string(),
  time: z.object({
    created: z.number(),
    updated: z.number(),
    compacting: z.number().optional(),
    archived: z.number().optional(),
  }),
  /** Rules that apply to this session only, after the agent's and the runtime's. */
  permission: Ruleset.optional(),
  /** The agent its prompts use when they name none (before the runtime's default agent). */
  agent: z.string().min(1).optional(),
  /** The model its prompts use when neither they nor their agent name one and no turn has run yet. */
  model: ModelRef.optional(),
  /** The host's own data about the session (a user ID, a ticket): stored and returned as given. */
  metadata: z.record(z.string(), z.json()).optional(),
  summary: z
    .object({
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      files: z.number().int().nonnegative(),
      diffs: z.array(FileDiff).optional(),
    })
    .optional(),
  revert: z
    .object({
      messageID: id("message"),
      partID: id("part").optional(),
      snapshot: z.string().optional(),
      diff: z.string().optional(),
    })
    .optional(),
  cost: z.number().nonnegative(),
  /** Some step ran on a model without prices: `cost` leaves it out. */
  costUnknown: z.literal(true).optional(),
  tokens: Tokens,
})
export type Info = z.infer<typeof Info>
