import type { AskDeps } from "../ask/deps.js"
import { createPendingStore } from "../ask/pending-store.js"
import { createWaiters } from "../ask/waiters.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
import { parseID } from "../id/parse-id.js"
import { RejectedError } from "./errors.js"
import {
  type AskInput,
  AskInput as AskInputSchema,
  checkAnswers,
  type ReplyInput,
  ReplyInput as ReplyInputSchema,
} from "./input.js"
import { type Answer, Request } from "./schema.js"

export type QuestionHandler = (
  request: Request,
  context: { signal: AbortSignal },
) => Answer[] | Promise<Answer[]>

export type QuestionDeps = AskDeps & { onQuestion?: QuestionHandler | undefined }

export type QuestionService = ReturnType<typeof createQuestionService>

export function createQuestionService(deps: QuestionDeps) {
  const { storage, bus, ids } = deps
  const waiters = createWaiters<Request, Answer[]>()
  const pending = createPendingStore(storage, "question/pending/", Request)

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
      onExpire: () => void dismiss(request, RejectedError.timedOut(timeoutMs ?? 0)),
      onAbort: () => void dismiss(request, RejectedError.aborted()),
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
      if (waiters.has(request.id)) await dismiss(request, RejectedError.handlerFailed(error))
    }
  }

  async function answer(request: Request, answers: Answer[]) {
    const waiter = waiters.take(request.id)
    await pending.remove(request.id)
    bus.publish("question.replied", { sessionID: request.sessionID, requestID: request.id, answers })
    waiter?.resolve(answers)
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
    await answer(request, answers)
  }

  async function reject(requestID: string): Promise<void> {
    deps.assertOpen()
    await dismiss(await find(parseID("requestID", "question", requestID)), RejectedError.byUser())
  }

  /** Rejects every waiting question; called by runtime.close() before storage closes. */
  async function close(): Promise<void> {
    for (const request of waiters.requests()) await dismiss(request, RejectedError.closed())
  }

  return { ask, list, reply, reject, close }
}
