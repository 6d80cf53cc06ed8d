import { afterEach, describe, expect, it, vi } from "vitest"
import {
  createRuntime,
  type Event,
  Identifier,
  InvalidInputError,
  MemoryStorage,
  NotFoundError,
  Question,
  RuntimeClosedError,
  type RuntimeOptions,
} from "../../src/index.js"
import { rejection } from "../session/helpers.js"

afterEach(() => {
  vi.useRealTimers()
})

const pickOne: Question.Info[] = [
  {
    question: "Which package manager?",
    header: "Package manager",
    options: [
      { label: "npm", description: "The default" },
      { label: "pnpm", description: "Faster installs" },
    ],
    custom: false,
  },
]
const pickMany = (custom: boolean): Question.Info => ({
  question: "Which checks should run?",
  header: "Checks",
  options: [
    { label: "lint", description: "biome" },
    { label: "test", description: "vitest" },
  ],
  multiple: true,
  custom,
})

async function setup(options: RuntimeOptions = {}) {
  const runtime = createRuntime(options)
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create()
  const asked = () =>
    events
      .filter((event) => event.type === "question.asked")
      .map((event) => event.properties as Question.Request)
  const start = (
    questions: Question.AskInput["questions"] = pickOne,
    extra: Partial<Question.AskInput> = {},
  ) => runtime.question.ask({ sessionID: session.id, questions, ...extra }).catch((error: Error) => error)
  return { runtime, session, events, asked, start }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("runtime.question", () => {
  it("stores and publishes a question and resolves with one answer per question", async () => {
    const { runtime, session, events, asked, start } = await setup()
    const outcome = start([...pickOne, pickMany(true)], {
      tool: { messageID: Identifier.ascending("message"), callID: "call_1" },
    })
    await settle()
    const [request] = asked()
    expect(request?.id).toMatch(/^que_/)
    expect(request?.questions[1]?.custom).toBe(true)
    expect(await runtime.question.list()).toEqual([request])
    const answers = [["pnpm"], ["lint", "test", "also typecheck"]]
    await runtime.question.reply({ requestID: request!.id, answers })
    expect(await outcome).toEqual(answers)
    expect(await runtime.question.list()).toEqual([])
    expect(events.at(-1)).toEqual({
      type: "question.replied",
      properties: { sessionID: session.id, requestID: request!.id, answers },
    })
  })

  it("defaults custom to true", async () => {
    const { start, asked, runtime } = await setup()
    const outcome = start([{ question: "Name?", header: "Name", options: [] }])
    await settle()
    await runtime.question.reply({ requestID: asked()[0]!.id, answers: [["Ada"]] })
    expect(await outcome).toEqual([["Ada"]])
  })

  it("refuses malformed answers, naming the question, and keeps waiting", async () => {
    const { runtime, asked, start } = await setup()
    const outcome = start([...pickOne, pickMany(false)])
    await settle()
    const requestID = asked()[0]!.id
    const cases: [string[][], string, string][] = [
      [[["npm"]], "answers", "one per question"],
      [[["yarn"], ["lint"]], "answers.0", '"yarn" is not an option'],
      [[["npm", "pnpm"], ["lint"]], "answers.0", "takes one choice"],
      [[["npm"], ["lint", "format"]], "answers.1", '"format" is not an option'],
      // A huge answer is quoted by its first 100 characters and its length, not whole.
      [[["y".repeat(1_000_000)], ["lint"]], "answers.0", `"${"y".repeat(100)}"… (1000000 characters) is not`],
    ]
    for (const [answers, path, message] of cases) {
      const error = await rejection(runtime.question.reply({ requestID, answers }))
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).data.issues[0]).toMatchObject({ path })
      expect(error.message).toContain(message)
    }
    expect(await runtime.question.list()).toHaveLength(1)
    await runtime.question.reply({ requestID, answers: [["npm"], []] })
    expect(await outcome).toEqual([["npm"], []])
  })

  it("rejects a dismissed question with the model-facing message", async () => {
    const { runtime, session, events, asked, start } = await setup()
    const outcome = start()
    await settle()
    await runtime.question.reject(asked()[0]!.id)
    const error = (await outcome) as Question.RejectedError
    expect(Question.RejectedError.isInstance(error)).toBe(true)
    expect(error.message).toBe("The user dismissed this question.")
    expect(events.at(-1)).toEqual({
      type: "question.rejected",
      properties: { sessionID: session.id, requestID: asked()[0]!.id },
    })
    expect(await runtime.question.list()).toEqual([])
  })

  it("times out, per call or by the runtime default", async () => {
    vi.useFakeTimers()
    const { runtime, start } = await setup({ askTimeoutMs: 5_000 })
    const perCall = start(pickOne, { timeoutMs: 100 })
    const byDefault = start()
    await vi.advanceTimersByTimeAsync(100)
    expect(((await perCall) as Question.RejectedError).data.reason).toBe("timeout")
    await vi.advanceTimersByTimeAsync(4_900)
    expect(((await byDefault) as Question.RejectedError).data.reason).toBe("timeout")
    expect(await runtime.question.list()).toEqual([])
  })

  it("waits out a timeout of 2^31 ms or more, which a single timer would fire after 1 ms", async () => {
    vi.useFakeTimers()
    const { runtime, start } = await setup({ askTimeoutMs: 2 ** 31 })
    const outcomes: unknown[] = []
    const byDefault = start()
    void byDefault.then((outcome) => outcomes.push(outcome))
    await vi.advanceTimersByTimeAsync(1)
    expect(outcomes).toEqual([])
    await vi.advanceTimersByTimeAsync(2 ** 31 - 2)
    expect(outcomes).toEqual([])
    expect(await runtime.question.list()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    const error = (await byDefault) as Question.RejectedError
    expect(error.data.reason).toBe("timeout")
    expect(error.message).toContain(`timed out after ${2 ** 31} ms`)
    expect(await runtime.question.list()).toEqual([])
  })

  it("waits without limit when a call's timeoutMs is Infinity, and refuses other bad timeouts", async () => {
    vi.useFakeTimers()
    const { runtime, asked, start } = await setup({ askTimeoutMs: 1_000 })
    const unlimited = start(pickOne, { timeoutMs: Number.POSITIVE_INFINITY })
    await vi.advanceTimersByTimeAsync(2 ** 40)
    expect(await runtime.question.list()).toHaveLength(1)
    await runtime.question.reply({ requestID: asked()[0]!.id, answers: [["npm"]] })
    expect(await unlimited).toEqual([["npm"]])
    for (const timeoutMs of [0, -5, 0.5, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** 53]) {
      const error = (await start(pickOne, { timeoutMs })) as InvalidInputError
      expect(InvalidInputError.isInstance(error), String(timeoutMs)).toBe(true)
      expect(error.data.issues.map((issue) => issue.path)).toEqual(["timeoutMs"])
    }
    expect(asked()).toHaveLength(1)
  })

  it("takes answers from an onQuestion handler, and validates them", async () => {
    const good = await setup({
      onQuestion: (request) => request.questions.map((question) => [question.options[0]!.label]),
    })
    expect(await good.start()).toEqual([["npm"]])
    const bad = await setup({ onQuestion: () => [["yarn"]] })
    const error = (await bad.start()) as Question.RejectedError
    expect(error.data.reason).toBe("handler")
    expect(error.message).toContain('"yarn" is not an option')
  })

  it("rejects at once in a non-interactive runtime without a handler", async () => {
    const { start, asked } = await setup({ nonInteractive: "deny" })
    const error = (await start()) as Question.RejectedError
    expect(error.data.reason).toBe("non-interactive")
    expect(asked()).toEqual([])
  })

  it("refuses unknown requests and bad questions", async () => {
    const { runtime, session } = await setup()
    const requestID = Identifier.ascending("question")
    expect(
      NotFoundError.isInstance(await rejection(runtime.question.reply({ requestID, answers: [] }))),
    ).toBe(true)
    expect(NotFoundError.isInstance(await rejection(runtime.question.reject(requestID)))).toBe(true)
    const longHeader = await rejection(
      runtime.question.ask({
        sessionID: session.id,
        questions: [{ question: "q", header: "x".repeat(31), options: [] }],
      }),
    )
    expect((longHeader as InvalidInputError).data.issues[0]?.path).toBe("questions.0.header")
  })

  it("rejects what is pending when the runtime closes, and keeps runtimes apart", async () => {
    const a = await setup()
    const b = await setup()
    const outcome = a.start()
    await settle()
    expect(await b.runtime.question.list()).toEqual([])
    await a.runtime.close({ asks: "reject" })
    expect(((await outcome) as Question.RejectedError).data.reason).toBe("closed")
  })

  it("leaves what is pending stored when the runtime closes, as a crash would", async () => {
    const storage = new MemoryStorage()
    const a = await setup({ storage })
    const outcome = a.start()
    await settle()
    await a.runtime.close()
    expect(RuntimeClosedError.isInstance(await outcome)).toBe(true)
    expect(await storage.listValues("question/pending/")).toHaveLength(1)
  })
})
