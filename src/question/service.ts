import { z } from "zod"
import type { AskDeps } from "../ask/deps.js"
import { createAskRequests, ignore } from "../ask/requests.js"
import { parseInput } from "../error/invalid-input.js"
import { NotFoundError } from "../error/not-found.js"
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

/** One runtime's question state, passed to the service's functions below. */
type Questions = { deps: QuestionDeps; requests: ReturnType<typeof createRequests> }

function createRequests(deps: QuestionDeps) {
  // A recorded answer of null: the question was dismissed.
  return createAskRequests<Request, Answer[], Answer[] | null>(deps, {
    area: "question",
    what: "Question",
    schema: Request,
    recordSchema: z.array(Answer).nullable(),
    unanswered: RejectedError,
  })
}

export function createQuestionService(deps: QuestionDeps) {
  const requests = createRequests(deps)
  const self: Questions = { deps, requests }
  return {
    ask: (input: AskInput): Promise<Answer[]> => ask(self, input),
    list: (): Promise<Request[]> => requests.list(),
    reply: (input: ReplyInput): Promise<void> => reply(self, input),
    reject: (requestID: string): Promise<void> => reject(self, requestID),
    close: (): Promise<void> => close(self),
    detach: (): void => requests.detach(),
    waitingSessions: requests.waitingSessions,
    storedCalls: requests.storedCalls,
    forgetStored: (sessionID: string): Promise<void> => forgetStored(self, sessionID),
    resumeRecorded: (sessionID: string): Promise<void> => resumeRecorded(self, sessionID),
    hasRecorded: requests.hasRecorded,
  }
}

/** Rejects every waiting question; called by runtime.close() before storage closes. */
async function close(self: Questions): Promise<void> {
  for (const request of self.requests.waiters.requests()) await dismiss(self, request, RejectedError.closed())
}

/** Dismisses what an earlier process left waiting in this session: a new run has moved past it. */
async function forgetStored(self: Questions, sessionID: string): Promise<void> {
  for (const request of await self.requests.storedOf(sessionID))
    await dismiss(self, request, RejectedError.byUser())
}

/** Acts on the answers another process recorded, as the permission service's `resumeRecorded`. */
async function resumeRecorded(self: Questions, sessionID: string): Promise<void> {
  const { waiters, pending } = self.requests
  for (const { request, answer: answers } of await pending.recorded(sessionID))
    if (!waiters.has(request.id)) await answerHere(self, request, answers)
}

async function ask(self: Questions, input: AskInput): Promise<Answer[]> {
  const { deps, requests } = self
  deps.assertOpen()
  const parsed = parseInput("question.ask input", AskInputSchema, input)
  const { sessionID, signal } = parsed
  if (!(await deps.storage.getSession(sessionID))) throw NotFoundError.of("Session", sessionID)
  if (!deps.onQuestion && deps.nonInteractive) throw RejectedError.nonInteractive()
  if (signal?.aborted) throw RejectedError.aborted()

  const request: Request = {
    id: deps.ids.ascending("question"),
    sessionID,
    questions: parsed.questions,
    ...(parsed.tool ? { tool: parsed.tool } : {}),
  }
  await requests.pending.put(request)
  const { answer, settled } = requests.wait(request, parsed, (error) => dismiss(self, request, error))
  deps.bus.publish("question.asked", request)
  if (deps.onQuestion) void askHandler(self, deps.onQuestion, request, settled)
  return answer
}

async function askHandler(self: Questions, handler: QuestionHandler, request: Request, signal: AbortSignal) {
  const { waiters } = self.requests
  try {
    const answers = await handler(request, { signal })
    if (!waiters.has(request.id)) return
    checkAnswers(request.questions, answers)
    await answer(self, request, answers)
  } catch (error) {
    // A storage failure after the answer was taken has settled the caller already (answer).
    if (waiters.has(request.id))
      await dismiss(self, request, RejectedError.handlerFailed(error)).catch(ignore)
  }
}

/** The caller gets the answers even when removing the stored question fails (it then stays listed). */
function answer(self: Questions, request: Request, answers: Answer[]): Promise<void> {
  return self.requests.end(request, { answer: answers }, () =>
    self.deps.bus.publish("question.replied", {
      sessionID: request.sessionID,
      requestID: request.id,
      answers,
    }),
  )
}

function dismiss(self: Questions, request: Request, error: Error): Promise<void> {
  return self.requests.end(request, { error }, () =>
    self.deps.bus.publish("question.rejected", { sessionID: request.sessionID, requestID: request.id }),
  )
}

async function reply(self: Questions, input: ReplyInput): Promise<void> {
  self.deps.assertOpen()
  const { requestID, answers } = parseInput("question.reply input", ReplyInputSchema, input)
  const request = await self.requests.find(requestID)
  checkAnswers(request.questions, answers)
  const forward = {
    type: "question.reply",
    sessionID: request.sessionID,
    input: { requestID, answers },
  } as const
  if (await self.requests.forwarded(request, forward, answers)) return
  await answerHere(self, request, answers)
}

async function reject(self: Questions, requestID: string): Promise<void> {
  self.deps.assertOpen()
  const request = await self.requests.find(parseID("requestID", "question", requestID))
  const forward = { type: "question.reject", sessionID: request.sessionID, requestID: request.id } as const
  if (await self.requests.forwarded(request, forward, null)) return
  await answerHere(self, request, null)
}

/** Answers (null: dismisses) in this process, resuming the tool call of a process that stopped. */
async function answerHere(self: Questions, request: Request, answers: Answer[] | null): Promise<void> {
  const orphaned = self.requests.isOrphaned(request)
  if (answers) await answer(self, request, answers)
  else await dismiss(self, request, RejectedError.byUser())
  if (orphaned) await self.deps.onStoredAnswer?.(request, answers ?? undefined)
}
