import { z } from "zod"
import { schema as id } from "../id/identifier.js"

/** What a rule does with a matching call: `allow` it, `deny` it, or `ask` the user. */
export const Action = z.enum(["allow", "deny", "ask"])
export type Action = z.infer<typeof Action>

/**
 * One permission rule: for calls asking `permission` (a tool name or `edit`, wildcards allowed) on a
 * matching `pattern`, `action` applies.
 */
export const Rule = z.object({ permission: z.string().min(1), pattern: z.string(), action: Action })
export type Rule = z.infer<typeof Rule>

/** Rules in order; the last matching rule wins (`Permission.evaluate`). */
export const Ruleset = z.array(Rule)
export type Ruleset = z.infer<typeof Ruleset>

/**
 * The answer to a permission request: allow `once`, allow `always` (this session and its children,
 * for the request's `always` patterns), or `reject`.
 */
export const Reply = z.enum(["once", "always", "reject"])
export type Reply = z.infer<typeof Reply>

/** A pending question to the human: may this call go ahead? */
export const Request = z.object({
  id: id("permission"),
  sessionID: id("session"),
  permission: z.string().min(1),
  patterns: z.array(z.string()),
  always: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  tool: z.object({ messageID: id("message"), callID: z.string() }).optional(),
})
export type Request = z.infer<typeof Request>
