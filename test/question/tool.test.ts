import { describe, expect, it, vi } from "vitest"
import { createRuntime, Identifier, Question, type Tool } from "../../src/index.js"
import { createQuestionTool, type QuestionAsk } from "../../src/question/tool.js"
import { runTool } from "../../src/tool/ai-tools.js"
import { InvalidToolArgumentsError } from "../../src/tool/errors.js"

const packageManager = {
  question: "Which package manager?",
  header: "Package manager",
  options: [
    { label: "npm", description: "The default" },
    { label: "pnpm", description: "Faster installs" },
  ],
}
const checks = {
  question: "Which checks should run?",
  header: "Checks",
  options: [
    { label: "lint", description: "biome" },
    { label: "test", description: "vitest" },
  ],
  multiple: true,
}
const notes = { question: "Anything else?", header: "Notes", options: [] }

function contextFor(abort = new AbortController().signal): Tool.Context {
  return {
    sessionID: "ses_1",
    messageID: "msg_1",
    callID: "call_1",
    agent: "build",
    abort,
    metadata: async () => {},
    ask: async () => {},
  }
}

describe("question tool", () => {
  it("has the id and description the model sees", () => {
    const tool = createQuestionTool(async () => [])
    expect(tool.id).toBe("question")
    expect(tool.description).toContain("blocked on a decision that the user must make")
    expect(tool.description).toContain("at most 30 characters")
  })

  it("asks with the context's session, message, call and abort signal", async () => {
    const ask = vi.fn<QuestionAsk>(async () => [["pnpm"]])
    const abort = new AbortController().signal
    await runTool(createQuestionTool(ask), { questions: [packageManager] }, contextFor(abort))
    expect(ask).toHaveBeenCalledTimes(1)
    expect(ask).toHaveBeenCalledWith({
      sessionID: "ses_1",
      questions: [{ ...packageManager, custom: true }],
      tool: { messageID: "msg_1", callID: "call_1" },
      signal: abort,
    })
  })

  it("lists each question with its answer, joining several labels and marking empty ones", async () => {
    const answers = [["pnpm"], ["lint", "test"], []]
    const tool = createQuestionTool(async () => answers)
    const result = await runTool(tool, { questions: [packageManager, checks, notes] }, contextFor())
    expect(result).toEqual({
      title: "3 questions answered",
      output: [
        "Question: Which package manager?",
        "Answer: pnpm",
        "",
        "Question: Which checks should run?",
        "Answer: lint, test",
        "",
        "Question: Anything else?",
        "Answer: (no answer)",
      ].join("\n"),
      metadata: { answers },
    })
  })

  it("says question, not questions, for one", async () => {
    const tool = createQuestionTool(async () => [["  "]])
    const result = await runTool(tool, { questions: [notes] }, contextFor())
    expect(result.title).toBe("1 question answered")
    expect(result.output).toBe("Question: Anything else?\nAnswer: (no answer)")
  })

  it("lets a rejection propagate as is", async () => {
    const rejection = Question.RejectedError.byUser()
    const tool = createQuestionTool(async () => {
      throw rejection
    })
    await expect(runTool(tool, { questions: [packageManager] }, contextFor())).rejects.toBe(rejection)
  })

  it("refuses invalid questions before asking, naming the field", async () => {
    const ask = vi.fn<QuestionAsk>(async () => [])
    const tool = createQuestionTool(ask)
    const invalid = [
      { questions: [{ ...packageManager, header: "A header that is far too long to fit" }] },
      { questions: [] },
      { questions: [{ ...packageManager, question: "" }] },
      { questions: [{ ...packageManager, options: [{ label: "npm" }] }] },
      {},
    ]
    const paths = []
    for (const input of invalid) {
      const error = await runTool(tool, input, contextFor()).catch((caught: unknown) => caught)
      expect(InvalidToolArgumentsError.isInstance(error)).toBe(true)
      paths.push((error as InvalidToolArgumentsError).data.issues[0]?.path)
    }
    expect(paths).toEqual([
      "questions.0.header",
      "questions",
      "questions.0.question",
      "questions.0.options.0.description",
      "questions",
    ])
    expect(ask).not.toHaveBeenCalled()
  })

  it("waits for the runtime's Question service and returns the host's answers", async () => {
    const runtime = createRuntime({ onQuestion: async (request) => request.questions.map(() => ["npm"]) })
    const session = await runtime.session.create()
    const tool = createQuestionTool(runtime.question.ask)
    const context = {
      ...contextFor(),
      sessionID: session.id,
      messageID: Identifier.ascending("message"),
    }
    const result = await runTool(tool, { questions: [packageManager] }, context)
    expect(result.output).toBe("Question: Which package manager?\nAnswer: npm")
    await runtime.close()
  })
})
