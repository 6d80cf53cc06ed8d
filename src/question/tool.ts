import { z } from "zod"
import { type Answer, Info } from "../schema/question.js"
import { define, type Result, type ToolInfo } from "../tool/tool.js"

/** How the tool reaches the Question service; the runtime passes `question.ask`. */
export type QuestionAsk = (input: {
  sessionID: string
  questions: Info[]
  tool: { messageID: string; callID: string }
  signal: AbortSignal
}) => Promise<Answer[]>

/** The arguments of the built-in `question` tool: the questions the model asks the user. */
export const QuestionToolParameters = z.object({
  questions: z
    .array(Info)
    .min(1)
    .describe(
      "The questions to ask, in the order the user should answer them. Each header at most 30 characters.",
    ),
})
export type QuestionToolParameters = z.infer<typeof QuestionToolParameters>

const DESCRIPTION = `Ask the user one or more questions and wait for the answers.

Use this only when you are blocked on a decision that the user must make: a preference, a trade-off, missing information you cannot find or infer yourself. Do not ask for confirmation of something you can decide, and do not ask what you could find out by reading files or running tools.

For each question:
- question: the full question, clear on its own.
- header: a short label for it, at most 30 characters.
- options: the likely answers, each with a label and a one-line description; put the one you recommend first. Offer options whenever you can, so the user can answer with a click.
- multiple: true when more than one option may be chosen.
- custom: false when only the listed options are acceptable (free text is allowed by default).

Ask related questions together in one call rather than one call each. The answers come back in the same order as the questions.`

/** The built-in `question` tool: lets the model ask the user and waits for the answers. */
export function createQuestionTool(ask: QuestionAsk): ToolInfo<typeof QuestionToolParameters> {
  return define("question", {
    description: DESCRIPTION,
    fileChanges: "none",
    parameters: QuestionToolParameters,
    async execute({ questions }, context) {
      // A rejection (QuestionRejectedError) is left to propagate: the processor stops the loop on it.
      const answers = await ask({
        sessionID: context.sessionID,
        questions,
        tool: { messageID: context.messageID, callID: context.callID },
        signal: context.abort,
      })
      return answeredResult(questions, answers)
    },
  })
}

/** What the question tool returns for these answers; also what a resumed call stores. */
export function answeredResult(questions: readonly Info[], answers: Answer[]): Result {
  const count = questions.length
  return {
    title: `${count} ${count === 1 ? "question" : "questions"} answered`,
    output: formatAnswers(questions, answers),
    metadata: { answers },
  }
}

/** Each question followed by the user's answer, the chosen labels joined with ", ". */
export function formatAnswers(questions: readonly Info[], answers: readonly Answer[]): string {
  return questions
    .map((question, index) => {
      const chosen = (answers[index] ?? []).filter((label) => label.trim() !== "")
      return `Question: ${question.question}\nAnswer: ${chosen.length > 0 ? chosen.join(", ") : "(no answer)"}`
    })
    .join("\n\n")
}
