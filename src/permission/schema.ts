import { z } from "zod"
import { schema as id } from "../id/identifier.js"

export const Action = z.enum(["allow", "deny", "ask"])
export type Action = z.infer<typeof Action>

export const Rule = z.object({ permission: z.string().min(1), pattern: z.string(), action: Action })
export type Rule = z.infer<typeof Rule>

export const Ruleset = z.array(Rule)
export type Ruleset = z.infer<typeof Ruleset>

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
