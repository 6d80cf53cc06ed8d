import { z } from "zod"
import type { AskDeps, Forwarded } from "../ask/deps.js"
import { createPendingStore } from "../ask/pending-store.js"
import { createWaiters } from "../ask/waiters.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { RuntimeClosedError } from "../error/runtime-closed.js"
import { parseID } from "../id/parse-id.js"
import {
  Answer,
  type AskInput,
  AskInput as AskInputSchema,
  checkAnswers,
  type ReplyInput,
  ReplyInput as ReplyInputSchema,
  Request,
} from "../schema/question.js"
import { RejectedError } from "./errors.js"

/**
 * Answers a runtime's questions in-process: RuntimeOptions' `onQuestion`. Gets the request and a
 * signal that aborts once the question is settled some other way (a reply through
 * `runtime.question.reply`, a timeout, the asker's abort); returns one `string[]` per question,
 * at once or as a promise. Answers are validated like replies: a handler that throws or answers
 * wrongly rejects the question, and the asker gets a `RejectedError`. Giving one also offers the
 * model the `question` tool. See docs/question.md.
 */
export type QuestionHandler = (
  request: Request,
  context: { signal: AbortSignal },
) => Answer[] | Promise<Answer[]>

export type QuestionDeps = AskDeps & {
  onQuestion?: QuestionHandler | undefined
  /**
   * Answers (undefined: dismissed) to a tool's question that no caller of this runtime waits
   * for: the process that asked stopped. The runtime resumes that tool call with them.
   */
  onStoredAnswer?: ((request: Request, answers: Answer[] | undefined) => Promise<void>) | undefined
}

/**
 * The question service, `runtime.question`: ask, reply, reject, list pending questions. See
 * `AskInput` and `ReplyInput` for what each throws.
 */
export type QuestionService = ReturnType<typeof createQuestionService>

export function createQuestionService(deps: QuestionDeps) {
  const { storage, bus, ids } = deps
  const waiters = createWaiters<Request, Answer[]>()
  // A recorded answer of null: the question was dismissed.
  const pending = createPendingStore(storage, "question", Request, z.array(Answer).nullable())

  async function ask(input: AskInput): Promise<Answer[]> {
    deps.assertOpen()
    const parsed = parseInput("question.ask input", AskInputSchema, input)
    const { sessionID, signal } = parsed
    if (!(await storage.getSession(sessionID))) throw NotFoundError.of("Session", sessionID)
    if (!deps.onQuestion && deps.nonInteractive) throw RejectedError.nonInteractive()
    if (signal?.aborted) throw RejectedError.aborted()

    const request: Request = {
      id: ids.ascending("question"),
      sessionID,
      questions: parsed.questions,
      ...(parsed.tool ? { tool: parsed.tool } : {}),
    }
    await pending.put(request)
    const timeoutMs = parsed.timeoutMs ?? deps.askTimeoutMs
    const { answer, settled } = waiters.add(request, {
      timeoutMs,
      signal,
      // The caller is settled even when removing the stored request fails; it then stays listed.
      onExpire: () => dismiss(request, RejectedError.timedOut(timeoutMs ?? 0)).catch(ignore),
      onAbort: () => dismiss(request, RejectedError.aborted()).catch(ignore),
    })
    bus.publish("question.asked", request)
    if (deps.onQuestion) void askHandler(deps.onQuestion, request, settled)
    return answer
  }

  async function askHandler(handler: QuestionHandler, request: Request, signal: AbortSignal) {
    try {
      const answers = await handler(request, { signal })
      if (!waiters.has(request.id)) return
      checkAnswers(request.questions, answers)
      await answer(request, answers)
    } catch (error) {
      // A storage failure after the answer was taken has settled the caller already (answer).
      if (waiters.has(request.id)) await dismiss(request, RejectedError.handlerFailed(error)).catch(ignore)
    }
  }

  /** The caller gets the answers even when removing the stored question fails (it then stays listed). */
  async function answer(request: Request, answers: Answer[]) {
    const waiter = waiters.take(request.id)
    try {
      await pending.remove(request.id)
    } finally {
      bus.publish("question.replied", { sessionID: request.sessionID, requestID: request.id, answers })
      waiter?.resolve(answers)
    }
  }

  async function dismiss(request: Request, error: Error) {
    const waiter = waiters.take(request.id)
    try {
      await pending.remove(request.id)
    } finally {
      bus.publish("question.rejected", { sessionID: request.sessionID, requestID: request.id })
      waiter?.reject(error)
    }
  }

  async function list(): Promise<Request[]> {
    deps.assertOpen()
    return pending.list()
  }

  /** A waiting request of this runtime, or one stored by an earlier process. */
  async function find(requestID: string): Promise<Request> {
    const request = waiters.get(requestID) ?? (await pending.get(requestID))
    if (!request) throw NotFoundError.of("Question", requestID)
    return request
  }

  async function reply(input: ReplyInput): Promise<void> {
    deps.assertOpen()
    const { requestID, answers } = parseInput("question.reply input", ReplyInputSchema, input)
    const request = await find(requestID)
    checkAnswers(request.questions, answers)
    const forward = {
      type: "question.reply",
      sessionID: request.sessionID,
      input: { requestID, answers },
    } as const
    if (await forwarded(request, forward, answers)) return
    await answerHere(request, answers)
  }

  async function reject(requestID: string): Promise<void> {
    deps.assertOpen()
    const request = await find(parseID("requestID", "question", requestID))
    const forward = { type: "question.reject", sessionID: request.sessionID, requestID: request.id } as const
    if (await forwarded(request, forward, null)) return
    await answerHere(request, null)
  }

  /**
   * Sends the answers (null: dismissed) to the process that runs the session, unless this one
   * waits for them, runs it, or nobody does. Recorded first (see the permission service's reply).
   */
  async function forwarded(request: Request, message: Forwarded, answers: Answer[] | null): Promise<boolean> {
    if (waiters.has(request.id) || !deps.forwardElsewhere) return false
    await pending.record(request, answers)
    return deps.forwardElsewhere(message)
  }

  /** Answers (null: dismisses) in this process, resuming the tool call of a process that stopped. */
  async function answerHere(request: Request, answers: Answer[] | null): Promise<void> {
    const orphaned = isOrphaned(request)
    if (answers) await answer(request, answers)
    else await dismiss(request, RejectedError.byUser())
    if (orphaned) await deps.onStoredAnswer?.(request, answers ?? undefined)
  }

  /** Acts on the answers another process recorded, as the permission service's `resumeRecorded`. */
  async function resumeRecorded(sessionID: string): Promise<void> {
    for (const { request, answer: answers } of await pending.recorded(sessionID))
      if (!waiters.has(request.id)) await answerHere(request, answers)
  }

  /** Whether answers recorded for the session's stored requests wait for a process to act on them. */
  async function hasRecorded(sessionID: string): Promise<boolean> {
    return (await pending.recorded(sessionID)).length > 0
  }

  function isOrphaned(request: Request): boolean {
    return !waiters.has(request.id) && request.tool !== undefined
  }

  async function storedOf(sessionID: string): Promise<Request[]> {
    return (await pending.list()).filter(
      (request) => request.sessionID === sessionID && !waiters.has(request.id),
    )
  }

  /** Tool calls of this session whose question an earlier process stored and nobody answered yet. */
  async function storedCalls(sessionID: string): Promise<string[]> {
    return (await storedOf(sessionID)).flatMap((request) => (request.tool ? [request.tool.callID] : []))
  }

  /** Dismisses what an earlier process left waiting in this session: a new run has moved past it. */
  async function forgetStored(sessionID: string): Promise<void> {
    for (const request of await storedOf(sessionID)) await dismiss(request, RejectedError.byUser())
  }

  /** Rejects every waiting question; called by runtime.close() before storage closes. */
  async function close(): Promise<void> {
    for (const request of waiters.requests()) await dismiss(request, RejectedError.closed())
  }

  /** Lets go of every waiting question, leaving it stored (see the permission service's `detach`). */
  function detach(): void {
    for (const request of waiters.requests())
      waiters.take(request.id)?.reject(new RuntimeClosedError({ message: "The runtime is closed" }))
  }

  /** The sessions of the questions waiting in this runtime. */
  function waitingSessions(): string[] {
    return waiters.requests().map((request) => request.sessionID)
  }

  return {
    ask,
    list,
    reply,
    reject,
    close,
    detach,
    waitingSessions,
    storedCalls,
    forgetStored,
    resumeRecorded,
    hasRecorded,
  }
}

function ignore(): void {}
