import { z } from "zod"
import type { AskDeps } from "../ask/deps.js"
import { createPendingStore } from "../ask/pending-store.js"
import { createWaiters } from "../ask/waiters.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
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

export function createPermissionService(deps: PermissionDeps) {
  const { storage, bus, ids } = deps
  const approvals = createApprovals(storage, deps.approvalScope)
  const waiters = createWaiters<Request, void>()
  const pending = createPendingStore(storage, "permission", Request, RecordedReply)
  const rulesOf = new Map<string, Ruleset>()

  async function ask(input: AskInput): Promise<void> {
    deps.assertOpen()
    const parsed = parseInput("permission.ask input", AskInputSchema, input)
    const { sessionID, permission, patterns, ruleset, signal } = parsed
    if (!(await storage.getSession(sessionID))) throw NotFoundError.of("Session", sessionID)

    const decided = patterns.map((pattern) => ({ pattern, rule: evaluate(permission, pattern, ruleset) }))
    const denied = decided.filter(({ rule }) => rule.action === "deny").map(({ rule }) => rule)
    if (denied.length > 0) throw DeniedError.byRules(unique(denied))
    const open = decided.filter(({ rule }) => rule.action === "ask").map(({ pattern }) => pattern)
    if (open.length === 0 || (await approvals.covers(sessionID, permission, open))) return

    if (!deps.onPermission && deps.nonInteractive === "allow") return
    if (!deps.onPermission && deps.nonInteractive === "deny")
      throw DeniedError.nonInteractive(permission, open)
    if (signal?.aborted) throw RejectedError.aborted()

    const request: Request = {
      id: ids.ascending("permission"),
      sessionID,
      permission,
      patterns,
      always: parsed.always,
      metadata: parsed.metadata,
      ...(parsed.tool ? { tool: parsed.tool } : {}),
    }
    await pending.put(request)
    const timeoutMs = parsed.timeoutMs ?? deps.askTimeoutMs
    const { answer, settled } = waiters.add(request, {
      timeoutMs,
      signal,
      // The caller is settled even when removing the stored request fails; it then stays listed.
      onExpire: () => settle(request.id, "reject", RejectedError.timedOut(timeoutMs ?? 0)).catch(ignore),
      onAbort: () => settle(request.id, "reject", RejectedError.aborted()).catch(ignore),
    })
    rulesOf.set(request.id, ruleset)
    bus.publish("permission.asked", request)
    if (deps.onPermission) void askHandler(deps.onPermission, request, settled)
    return answer
  }

  async function askHandler(handler: PermissionHandler, request: Request, signal: AbortSignal) {
    let answer: HandlerAnswer
    try {
      answer = parseInput("onPermission answer", HandlerAnswer, await handler(request, { signal }))
    } catch (error) {
      if (waiters.has(request.id))
        await settle(request.id, "reject", RejectedError.handlerFailed(error)).catch(ignore)
      return
    }
    if (!waiters.has(request.id)) return
    const { reply, message } = typeof answer === "string" ? { reply: answer, message: undefined } : answer
    try {
      await answerRequest(request, reply, message, "host")
    } catch (error) {
      // Storage failed while recording the answer (an approval, the request's removal): the
      // call fails with that error, which stops its turn; the request stays for the next run.
      rulesOf.delete(request.id)
      waiters.take(request.id)?.reject(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Ends one waiting request: removes it from storage, publishes the reply, settles the caller. */
  async function settle(requestID: string, reply: Reply, error?: Error): Promise<Request | undefined> {
    const waiter = waiters.take(requestID)
    rulesOf.delete(requestID)
    if (!waiter) return undefined
    try {
      await pending.remove(requestID)
    } finally {
      bus.publish("permission.replied", { sessionID: waiter.request.sessionID, requestID, reply })
      if (error) waiter.reject(error)
      else waiter.resolve()
    }
    return waiter.request
  }

  /** `by`: who said it, the user (`reply`) or the host (`onPermission`); the model is told which. */
  async function answerRequest(
    request: Request,
    reply: Reply,
    message?: string,
    by: "user" | "host" = "user",
  ) {
    const orphaned = !waiters.has(request.id) && request.tool !== undefined
    await settleRequest(request, reply, message, by)
    if (orphaned) await deps.onStoredReply?.(request, reply, message)
  }

  async function settleRequest(
    request: Request,
    reply: Reply,
    message: string | undefined,
    by: "user" | "host",
  ) {
    if (reply === "reject") {
      const refused = () => (by === "host" ? RejectedError.byHost() : RejectedError.byUser())
      const error = () => (message ? CorrectedError.withFeedback(message) : refused())
      await settleOrForget(request, "reject", error())
      // One "no" answers the whole batch of the session's waiting calls.
      for (const other of await pendingOf(request.sessionID)) await settleOrForget(other, "reject", error())
      return
    }
    if (reply === "always" && request.always.length > 0)
      await storage.write(approvals.writes(request.sessionID, request.permission, request.always))
    await settleOrForget(request, reply)
    if (reply === "always") await resolveNowApproved()
  }

  /** Settles a waiting request, or removes a stored one left by an earlier process. */
  async function settleOrForget(request: Request, reply: Reply, error?: Error) {
    if (await settle(request.id, reply, error)) return
    await pending.remove(request.id)
    bus.publish("permission.replied", { sessionID: request.sessionID, requestID: request.id, reply })
  }

  /** After an "always": every waiting request that the approvals now fully cover goes ahead. */
  async function resolveNowApproved() {
    for (const other of waiters.requests()) {
      const rules = rulesOf.get(other.id) ?? []
      const open = other.patterns.filter(
        (pattern) => evaluate(other.permission, pattern, rules).action === "ask",
      )
      if (await approvals.covers(other.sessionID, other.permission, open)) await settle(other.id, "always")
    }
  }

  async function pendingOf(sessionID: string): Promise<Request[]> {
    return (await pending.list()).filter((request) => request.sessionID === sessionID)
  }

  async function list(): Promise<Request[]> {
    deps.assertOpen()
    return pending.list()
  }

  /** Tool calls of this session whose request an earlier process stored and nobody answered yet. */
  async function storedCalls(sessionID: string): Promise<string[]> {
    return (await pendingOf(sessionID)).flatMap((request) =>
      request.tool && !waiters.has(request.id) ? [request.tool.callID] : [],
    )
  }

  /** Rejects what an earlier process left waiting in this session: a new run has moved past it. */
  async function forgetStored(sessionID: string): Promise<void> {
    for (const request of await pendingOf(sessionID))
      if (!waiters.has(request.id)) await settleOrForget(request, "reject")
  }

  async function reply(input: ReplyInput): Promise<void> {
    deps.assertOpen()
    const {
      requestID,
      reply: answer,
      message,
    } = parseInput("permission.reply input", ReplyInputSchema, input)
    const request = waiters.get(requestID) ?? (await pending.get(requestID))
    if (!request) throw NotFoundError.of("Permission request", requestID)
    const forward = {
      type: "permission.reply",
      sessionID: request.sessionID,
      input: { requestID, reply: answer, message },
    } as const
    if (!waiters.has(requestID) && deps.forwardElsewhere) {
      // Recorded before it may go to another process: should that one stop before acting on it,
      // the session's next run acts on it rather than answering "no".
      await pending.record(request, { reply: answer, ...(message ? { message } : {}) })
      if (await deps.forwardElsewhere(forward)) return
    }
    await answerRequest(request, answer, message)
  }

  /**
   * Acts on the replies another process recorded for this session's stored requests, which the
   * process they went to stopped before acting on: as if they were given here now. Called by the
   * session's run once it owns the session, so their calls resume in that run.
   */
  async function resumeRecorded(sessionID: string): Promise<void> {
    for (const { request, answer } of await pending.recorded(sessionID)) {
      // One of them may have answered others (a "no" answers the session's whole batch).
      if (waiters.has(request.id) || !(await pending.get(request.id))) continue
      await answerRequest(request, answer.reply, answer.message)
    }
  }

  /** Whether answers recorded for the session's stored requests wait for a process to act on them. */
  async function hasRecorded(sessionID: string): Promise<boolean> {
    return (await pending.recorded(sessionID)).length > 0
  }

  /** Rejects every waiting request; called by runtime.close() before storage closes. */
  async function close(): Promise<void> {
    for (const request of waiters.requests()) await settle(request.id, "reject", RejectedError.closed())
  }

  /**
   * Lets go of every waiting request without answering it: it stays stored, as after a crash,
   * for the next process to resume when answered. The callers waiting here get
   * RuntimeClosedError. Called by runtime.close() once the requests' sessions are frozen.
   */
  function detach(): void {
    for (const request of waiters.requests()) {
      rulesOf.delete(request.id)
      waiters.take(request.id)?.reject(new RuntimeClosedError({ message: "The runtime is closed" }))
    }
  }

  /** The sessions of the requests waiting in this runtime. */
  function waitingSessions(): string[] {
    return waiters.requests().map((request) => request.sessionID)
  }

  return {
    ask,
    list,
    reply,
    close,
    detach,
    waitingSessions,
    storedCalls,
    forgetStored,
    resumeRecorded,
    hasRecorded,
  }
}

function unique(rules: Rule[]): Rule[] {
  return [...new Set(rules)]
}

function ignore(): void {}
