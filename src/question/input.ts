import { z } from "zod"
import { TimeoutMs } from "../ask/timeout.js"
import { InvalidInputError } from "../error/invalid-input.js"
import { quote } from "../error/quote.js"
import { schema as id } from "../id/identifier.js"
import { Answer, Info } from "./schema.js"

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
