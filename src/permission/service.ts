import { z } from "zod"
import type { AskDeps } from "../ask/deps.js"
import { createAskRequests, ignore } from "../ask/requests.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import {
  type AskInput,
  AskInput as AskInputSchema,
  HandlerAnswer,
  Reply,
  type ReplyInput,
  ReplyInput as ReplyInputSchema,
  Request,
  type Rule,
  type Ruleset,
} from "../schema/permission.js"
import { evaluate } from "../schema/permission-rules.js"
import { type ApprovalScope, createApprovals } from "./approvals.js"
import { CorrectedError, DeniedError, RejectedError } from "./errors.js"

/**
 * Answers a permission request: "once", "always", "reject" or `{ reply, message? }`, at once or
 * as a promise. A promised reply is typed as any string because TypeScript types
 * `async () => "reject"` as `Promise<string>` when the handler may also answer at once
 * (microsoft/TypeScript#30185), so a tighter type would refuse what people write. Every answer
 * is checked when it arrives: one that is no reply rejects the request, as a handler that throws.
 */
export type PermissionHandler = (
  request: Request,
  context: { signal: AbortSignal },
) => HandlerAnswer | Promise<HandlerAnswer | PromisedReply>

/** `string & {}` keeps the three replies suggested in editors, where plain `string` absorbs them. */
type PromisedReply = Reply | (string & {})

export type PermissionDeps = AskDeps & {
  onPermission?: PermissionHandler | undefined
  approvalScope: ApprovalScope
  /**
   * A reply to a tool's request that no caller of this runtime waits for: the process that asked
   * stopped. The runtime resumes that tool call with the reply.
   */
  onStoredReply?: ((request: Request, reply: Reply, message: string | undefined) => Promise<void>) | undefined
}

/** A reply recorded for a request another process waits on (see the pending store's `record`). */
const RecordedReply = z.object({ reply: Reply, message: z.string().optional() })

/**
 * The permission service, `runtime.permission`: ask for a call, reply to a request, list pending
 * requests. See `AskInput` and `ReplyInput` for what each throws.
 */
export type PermissionService = ReturnType<typeof createPermissionService>

/** One runtime's permission state, passed to the service's functions below. */
type Permissions = {
  deps: PermissionDeps
  approvals: ReturnType<typeof createApprovals>
  requests: ReturnType<typeof createRequests>
  /** The rules each waiting request was checked against, for re-checking after an "always". */
  rulesOf: Map<string, Ruleset>
}

function createRequests(deps: PermissionDeps) {
  return createAskRequests<Request, void, z.infer<typeof RecordedReply>>(deps, {
    area: "permission",
    what: "Permission request",
    schema: Request,
    recordSchema: RecordedReply,
    unanswered: RejectedError,
  })
}

export function createPermissionService(deps: PermissionDeps) {
  const requests = createRequests(deps)
  const self: Permissions = {
    deps,
    approvals: createApprovals(deps.storage, deps.approvalScope),
    requests,
    rulesOf: new Map(),
  }
  return {
    ask: (input: AskInput): Promise<void> => ask(self, input),
    list: (): Promise<Request[]> => requests.list(),
    reply: (input: ReplyInput): Promise<void> => reply(self, input),
    close: (): Promise<void> => close(self),
    detach: (): void => detach(self),
    waitingSessions: requests.waitingSessions,
    storedCalls: requests.storedCalls,
    forgetStored: (sessionID: string): Promise<void> => forgetStored(self, sessionID),
    resumeRecorded: (sessionID: string): Promise<void> => resumeRecorded(self, sessionID),
    hasRecorded: requests.hasRecorded,
  }
}

async function ask(self: Permissions, input: AskInput): Promise<void> {
  const { deps, requests } = self
  deps.assertOpen()
  const parsed = parseInput("permission.ask input", AskInputSchema, input)
  const { sessionID, permission, patterns, ruleset, signal } = parsed
  if (!(await deps.storage.getSession(sessionID))) throw NotFoundError.of("Session", sessionID)

  const decided = patterns.map((pattern) => ({ pattern, rule: evaluate(permission, pattern, ruleset) }))
  const denied = decided.filter(({ rule }) => rule.action === "deny").map(({ rule }) => rule)
  if (denied.length > 0) throw DeniedError.byRules(unique(denied))
  const open = decided.filter(({ rule }) => rule.action === "ask").map(({ pattern }) => pattern)
  if (open.length === 0 || (await self.approvals.covers(sessionID, permission, open))) return

  if (!deps.onPermission && deps.nonInteractive === "allow") return
  if (!deps.onPermission && deps.nonInteractive === "deny") throw DeniedError.nonInteractive(permission, open)
  if (signal?.aborted) throw RejectedError.aborted()

  const request: Request = {
    id: deps.ids.ascending("permission"),
    sessionID,
    permission,
    patterns,
    always: parsed.always,
    metadata: parsed.metadata,
    ...(parsed.tool ? { tool: parsed.tool } : {}),
  }
  await requests.pending.put(request)
  const { answer, settled } = requests.wait(request, parsed, (error) =>
    settle(self, request.id, "reject", error),
  )
  self.rulesOf.set(request.id, ruleset)
  deps.bus.publish("permission.asked", request)
  if (deps.onPermission) void askHandler(self, deps.onPermission, request, settled)
  return answer
}

async function askHandler(
  self: Permissions,
  handler: PermissionHandler,
  request: Request,
  signal: AbortSignal,
) {
  const { waiters } = self.requests
  let answer: HandlerAnswer
  try {
    answer = parseInput("onPermission answer", HandlerAnswer, await handler(request, { signal }))
  } catch (error) {
    if (waiters.has(request.id))
      await settle(self, request.id, "reject", RejectedError.handlerFailed(error)).catch(ignore)
    return
  }
  if (!waiters.has(request.id)) return
  const { reply, message } = typeof answer === "string" ? { reply: answer, message: undefined } : answer
  try {
    await answerRequest(self, request, reply, message, "host")
  } catch (error) {
    // Storage failed while recording the answer (an approval, the request's removal): the
    // call fails with that error, which stops its turn; the request stays for the next run.
    self.rulesOf.delete(request.id)
    waiters.take(request.id)?.reject(error instanceof Error ? error : new Error(String(error)))
  }
}

/** Ends one waiting request: removes it from storage, publishes the reply, settles the caller. */
async function settle(
  self: Permissions,
  requestID: string,
  reply: Reply,
  error?: Error,
): Promise<Request | undefined> {
  const request = self.requests.waiters.get(requestID)
  self.rulesOf.delete(requestID)
  if (!request) return undefined
  await self.requests.end(request, error ? { error } : { answer: undefined }, () =>
    self.deps.bus.publish("permission.replied", { sessionID: request.sessionID, requestID, reply }),
  )
  return request
}

/** `by`: who said it, the user (`reply`) or the host (`onPermission`); the model is told which. */
async function answerRequest(
  self: Permissions,
  request: Request,
  reply: Reply,
  message?: string,
  by: "user" | "host" = "user",
) {
  const orphaned = self.requests.isOrphaned(request)
  await settleRequest(self, request, reply, message, by)
  if (orphaned) await self.deps.onStoredReply?.(request, reply, message)
}

async function settleRequest(
  self: Permissions,
  request: Request,
  reply: Reply,
  message: string | undefined,
  by: "user" | "host",
) {
  if (reply === "reject") {
    const refused = () => (by === "host" ? RejectedError.byHost() : RejectedError.byUser())
    const error = () => (message ? CorrectedError.withFeedback(message) : refused())
    await settleOrForget(self, request, "reject", error())
    // One "no" answers the whole batch of the session's waiting calls.
    for (const other of await pendingOf(self, request.sessionID))
      await settleOrForget(self, other, "reject", error())
    return
  }
  const { approvals } = self
  if (reply === "always" && request.always.length > 0)
    await self.deps.storage.write(approvals.writes(request.sessionID, request.permission, request.always))
  await settleOrForget(self, request, reply)
  if (reply === "always") await resolveNowApproved(self)
}

/** Settles a waiting request, or removes a stored one left by an earlier process. */
async function settleOrForget(self: Permissions, request: Request, reply: Reply, error?: Error) {
  if (await settle(self, request.id, reply, error)) return
  await self.requests.pending.remove(request.id)
  self.deps.bus.publish("permission.replied", { sessionID: request.sessionID, requestID: request.id, reply })
}

/** After an "always": every waiting request that the approvals now fully cover goes ahead. */
async function resolveNowApproved(self: Permissions) {
  for (const other of self.requests.waiters.requests()) {
    const rules = self.rulesOf.get(other.id) ?? []
    const open = other.patterns.filter(
      (pattern) => evaluate(other.permission, pattern, rules).action === "ask",
    )
    if (await self.approvals.covers(other.sessionID, other.permission, open))
      await settle(self, other.id, "always")
  }
}

async function pendingOf(self: Permissions, sessionID: string): Promise<Request[]> {
  return (await self.requests.pending.list()).filter((request) => request.sessionID === sessionID)
}

async function reply(self: Permissions, input: ReplyInput): Promise<void> {
  self.deps.assertOpen()
  const { requestID, reply: answer, message } = parseInput("permission.reply input", ReplyInputSchema, input)
  const request = await self.requests.find(requestID)
  const forward = {
    type: "permission.reply",
    sessionID: request.sessionID,
    input: { requestID, reply: answer, message },
  } as const
  const recorded = { reply: answer, ...(message ? { message } : {}) }
  if (await self.requests.forwarded(request, forward, recorded)) return
  await answerRequest(self, request, answer, message)
}

/**
 * Acts on the replies another process recorded for this session's stored requests, which the
 * process they went to stopped before acting on: as if they were given here now. Called by the
 * session's run once it owns the session, so their calls resume in that run.
 */
async function resumeRecorded(self: Permissions, sessionID: string): Promise<void> {
  const { waiters, pending } = self.requests
  for (const { request, answer } of await pending.recorded(sessionID)) {
    // One of them may have answered others (a "no" answers the session's whole batch).
    if (waiters.has(request.id) || !(await pending.get(request.id))) continue
    await answerRequest(self, request, answer.reply, answer.message)
  }
}

/** Rejects every waiting request; called by runtime.close() before storage closes. */
async function close(self: Permissions): Promise<void> {
  for (const request of self.requests.waiters.requests())
    await settle(self, request.id, "reject", RejectedError.closed())
}

/**
 * Lets go of every waiting request without answering it: it stays stored, as after a crash,
 * for the next process to resume when answered. The callers waiting here get
 * RuntimeClosedError. Called by runtime.close() once the requests' sessions are frozen.
 */
function detach(self: Permissions): void {
  self.rulesOf.clear()
  self.requests.detach()
}

/** Rejects what an earlier process left waiting in this session: a new run has moved past it. */
async function forgetStored(self: Permissions, sessionID: string): Promise<void> {
  for (const request of await self.requests.storedOf(sessionID)) await settleOrForget(self, request, "reject")
}

function unique(rules: Rule[]): Rule[] {
  return [...new Set(rules)]
}
