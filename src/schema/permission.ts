import { z } from "zod"
import { define } from "../bus/event.js"
import { schema as id } from "../id/identifier.js"
import { TimeoutMs } from "../util/timeout.js"

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

/**
 * What `runtime.permission.ask` takes: the session, the permission and patterns a call needs, and
 * the rules to check them against. Resolves when allowed; throws `DeniedError` when a rule denies or
 * no one may be asked, `RejectedError` when refused (by the user, the handler, a timeout or an
 * abort), `InvalidInputError` on a malformed value and `NotFoundError` on an unknown session.
 */
export const AskInput = z.strictObject({
  sessionID: id("session"),
  // A request names one permission; a wildcard here would turn an "always" into approval of all.
  permission: z
    .string()
    .min(1)
    .regex(/^[^*?]+$/, "a request's permission is a literal name, without * or ?"),
  /** What the call touches (a command, a path); each is checked against the rules. */
  patterns: z.array(z.string()).min(1),
  /** What an "always" answer approves from now on; often broader than `patterns`. */
  always: z.array(z.string()).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
  tool: z.strictObject({ messageID: id("message"), callID: z.string().min(1) }).optional(),
  /** The configured rules for this call (agent, runtime and session rules, merged). */
  ruleset: Ruleset.default([]),
  /** Overrides the runtime's askTimeoutMs for this request; Infinity waits without limit. */
  timeoutMs: TimeoutMs.optional(),
  /** Withdraws the request when aborted (the tool call was cancelled). */
  signal: z.instanceof(AbortSignal).optional(),
})
export type AskInput = z.input<typeof AskInput>

/**
 * What `runtime.permission.reply` takes: the request's ID, the reply, and on `reject` an optional
 * message for the model. A malformed value throws `InvalidInputError`; an unknown request,
 * `NotFoundError`.
 */
export const ReplyInput = z.strictObject({
  requestID: id("permission"),
  reply: Reply,
  /** With "reject": what the user wants instead, passed to the model. */
  message: z.string().min(1).optional(),
})
export type ReplyInput = z.input<typeof ReplyInput>

/** What an `onPermission` handler returns: a reply, or a reply with the user's message. */
export const HandlerAnswer = z.union(
  [Reply, z.strictObject({ reply: Reply, message: z.string().min(1).optional() })],
  { error: 'expected "once", "always", "reject" or { reply, message? }' },
)
export type HandlerAnswer = z.infer<typeof HandlerAnswer>

/**
 * The permission events: a request asked (`permission.asked`) and replied (`permission.replied`),
 * with their zod schemas. Use them with `runtime.events.on`.
 */
export const Event = {
  Asked: define("permission.asked", Request),
  Replied: define(
    "permission.replied",
    z.object({ sessionID: id("session"), requestID: id("permission"), reply: Reply }),
  ),
}
