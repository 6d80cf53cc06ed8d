import { z } from "zod"
import { define } from "../bus/event.js"
import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"
import { schema as id } from "../id/identifier.js"
import { TimeoutMs } from "../util/timeout.js"

/** One choice offered for a question: the label the answer carries and a description. */
export const Option = z.object({ label: z.string().min(1), description: z.string() })
export type Option = z.infer<typeof Option>

/**
 * One question: its text, a short header (at most 30 characters), the options, whether several may
 * be chosen, and whether free text is accepted.
 */
export const Info = z.object({
  question: z.string().min(1),
  header: z.string().max(30),
  options: z.array(Option),
  multiple: z.boolean().optional(),
  /** Whether a free-text answer is accepted besides the options. */
  custom: z.boolean().default(true),
})
export type Info = z.infer<typeof Info>

/** `Info` under the name files outside the `Question` namespace's folder import it by. */
export { Info as QuestionInfo }

/** A pending question to the user: one or more questions, from a session, often from a tool call. */
export const Request = z.object({
  id: id("question"),
  sessionID: id("session"),
  questions: z.array(Info).min(1),
  tool: z.object({ messageID: id("message"), callID: z.string() }).optional(),
})
export type Request = z.infer<typeof Request>

/** The labels (or free text) chosen for one question. */
export const Answer = z.array(z.string())
export type Answer = z.infer<typeof Answer>

/** The answers to a request, one `Answer` per question, in order. */
export const Reply = z.object({ answers: z.array(Answer) })
export type Reply = z.infer<typeof Reply>

/**
 * What `runtime.question.ask` takes. Resolves with the answers; throws `RejectedError` when dismissed
 * (by the user, a timeout, an abort, a failed handler, or `nonInteractive`), `InvalidInputError` on
 * a malformed value and `NotFoundError` on an unknown session.
 */
export const AskInput = z.strictObject({
  sessionID: id("session"),
  questions: z.array(Info).min(1),
  tool: z.strictObject({ messageID: id("message"), callID: z.string().min(1) }).optional(),
  /** Overrides the runtime's askTimeoutMs for this request; Infinity waits without limit. */
  timeoutMs: TimeoutMs.optional(),
  /** Withdraws the question when aborted (the tool call was cancelled). */
  signal: z.instanceof(AbortSignal).optional(),
})
export type AskInput = z.input<typeof AskInput>

/**
 * What `runtime.question.reply` takes: the request's ID and one answer per question. Answers that do
 * not fit the questions throw `InvalidInputError`; an unknown request, `NotFoundError`.
 */
export const ReplyInput = z.strictObject({ requestID: id("question"), answers: z.array(Answer) })
export type ReplyInput = z.input<typeof ReplyInput>

/**
 * Checks answers against their questions: one answer per question, choices among the
 * options unless free text is allowed, at most one choice unless `multiple`.
 */
export function checkAnswers(questions: readonly Info[], answers: readonly Answer[]): void {
  const issues: { path: string; message: string }[] = []
  if (answers.length !== questions.length)
    issues.push({
      path: "answers",
      message: `expected ${questions.length} answer(s), one per question, got ${answers.length}`,
    })
  questions.forEach((question, index) => {
    const answer = answers[index]
    if (!answer) return
    if (!question.multiple && answer.length > 1)
      issues.push({
        path: `answers.${index}`,
        message: `"${question.header}" takes one choice, got ${answer.length}`,
      })
    if (question.custom === false) {
      const labels = new Set(question.options.map((option) => option.label))
      for (const choice of answer)
        if (!labels.has(choice))
          issues.push({
            path: `answers.${index}`,
            message: `${quote(choice)} is not an option of "${question.header}" (${[...labels].join(", ")})`,
          })
    }
  })
  if (issues.length > 0)
    throw new InvalidInputError({
      message: `Invalid answers: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
      issues,
    })
}

/**
 * The question events: asked, replied and rejected, with their zod schemas. Use them with
 * `runtime.events.on`.
 */
export const Event = {
  Asked: define("question.asked", Request),
  Replied: define(
    "question.replied",
    z.object({ sessionID: id("session"), requestID: id("question"), answers: z.array(Answer) }),
  ),
  Rejected: define("question.rejected", z.object({ sessionID: id("session"), requestID: id("question") })),
}
