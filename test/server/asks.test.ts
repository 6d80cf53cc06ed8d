import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type Event, type MessageV2, type Permission, type Question, Tool } from "../../src/index.js"
import { say } from "../../src/testing/index.js"
import { nextEvent, setup, text, unknownPermissionID, unknownQuestionID } from "./helpers.js"

const deploy = Tool.define("deploy", {
  description: "Deploys to an environment",
  parameters: z.object({ target: z.string() }),
  async execute({ target }, context) {
    await context.ask({ permission: "deploy", patterns: [target] })
    return { title: target, output: `deployed to ${target}`, metadata: {} }
  },
})
const askDeploy: Permission.Rule[] = [{ permission: "deploy", pattern: "*", action: "ask" }]
const pick = {
  question: "Which database?",
  header: "Database",
  options: [
    { label: "postgres", description: "Server" },
    { label: "sqlite", description: "File" },
  ],
  custom: false,
}

const isType =
  <T extends Event["type"]>(type: T) =>
  (event: Event): event is Extract<Event, { type: T }> =>
    event.type === type

async function toolOutput(context: ReturnType<typeof setup>, sessionID: string) {
  const messages = (await context.call("GET", `/session/${sessionID}/message`)).body as MessageV2.WithParts[]
  const tool = messages.flatMap((message) => message.parts).find((part) => part.type === "tool")
  return tool?.type === "tool" ? tool.state : undefined
}

/** A session whose prompt_async run now waits on the permission request it returns. */
async function waitingOnPermission() {
  const context = setup({
    tools: [deploy],
    permission: askDeploy,
    turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
  })
  const sessionID = await context.newSession()
  const asked = nextEvent(context.runtime, isType("permission.asked"))
  await context.call("POST", `/session/${sessionID}/prompt_async`, text("ship it"))
  const request = (await asked).properties as Permission.Request
  return { ...context, sessionID, request }
}

async function waitingOnQuestion() {
  const context = setup({
    question: true,
    turns: [[say.toolCall("question", { questions: [pick] })], [say.text("Noted")]],
  })
  const sessionID = await context.newSession()
  const asked = nextEvent(context.runtime, isType("question.asked"))
  await context.call("POST", `/session/${sessionID}/prompt_async`, text("set it up"))
  const request = (await asked).properties as Question.Request
  return { ...context, sessionID, request }
}

describe("permission routes", () => {
  it("GET /permission lists the request; replying 'once' lets the run complete", async () => {
    const context = await waitingOnPermission()
    const { call, runtime, sessionID, request } = context
    expect((await call("GET", "/permission")).body).toEqual([request])
    const idle = nextEvent(runtime, (event) => event.type === "session.idle")
    const reply = await call("POST", `/permission/${request.id}/reply`, { reply: "once", sessionID })
    expect(reply).toMatchObject({ status: 200, body: true })
    await idle
    expect(await toolOutput(context, sessionID)).toMatchObject({
      status: "completed",
      output: "deployed to prod",
    })
    expect((await call("GET", "/permission")).body).toEqual([])
  })

  it("a reject with a message reaches the model as the tool's error", async () => {
    const context = await waitingOnPermission()
    const idle = nextEvent(context.runtime, (event) => event.type === "session.idle")
    const body = { reply: "reject", message: "deploy to staging instead" }
    expect(await context.call("POST", `/permission/${context.request.id}/reply`, body)).toMatchObject({
      status: 200,
      body: true,
    })
    await idle
    const state = await toolOutput(context, context.sessionID)
    expect(state).toMatchObject({ status: "error" })
    expect(JSON.stringify(state)).toContain("deploy to staging instead")
  })

  it("refuses unknown requests (404), another session's (404) and bad replies (400)", async () => {
    const { call, newSession, request, runtime } = await waitingOnPermission()
    const other = await newSession()
    const unknown = await call("POST", `/permission/${unknownPermissionID}/reply`, { reply: "once" })
    expect(unknown).toMatchObject({
      status: 404,
      body: { name: "NotFoundError", data: { id: unknownPermissionID } },
    })
    const wrongSession = await call("POST", `/permission/${request.id}/reply`, {
      reply: "once",
      sessionID: other,
    })
    expect(wrongSession).toMatchObject({ status: 404, body: { name: "NotFoundError" } })
    const badReply = await call("POST", `/permission/${request.id}/reply`, { reply: "sure" })
    expect(badReply.status).toBe(400)
    expect(JSON.stringify(badReply.body)).toContain('"path":"reply"')
    expect((await call("POST", "/permission/nope/reply", { reply: "once" })).status).toBe(400)
    expect(await runtime.permission.list()).toEqual([request])
  })
})

describe("question routes", () => {
  it("GET /question lists the question; the reply completes the run", async () => {
    const context = await waitingOnQuestion()
    const { call, runtime, sessionID, request } = context
    expect((await call("GET", "/question")).body).toEqual([request])
    const idle = nextEvent(runtime, (event) => event.type === "session.idle")
    const reply = await call("POST", `/question/${request.id}/reply`, { answers: [["sqlite"]], sessionID })
    expect(reply).toMatchObject({ status: 200, body: true })
    await idle
    expect(await toolOutput(context, sessionID)).toMatchObject({ status: "completed" })
    expect(JSON.stringify(await toolOutput(context, sessionID))).toContain("sqlite")
  })

  it("POST /reject dismisses the question and the run goes on", async () => {
    const context = await waitingOnQuestion()
    const idle = nextEvent(context.runtime, (event) => event.type === "session.idle")
    const body = { sessionID: context.sessionID }
    expect(await context.call("POST", `/question/${context.request.id}/reject`, body)).toMatchObject({
      status: 200,
      body: true,
    })
    await idle
    expect(await toolOutput(context, context.sessionID)).toMatchObject({ status: "error" })
    expect((await context.call("GET", "/question")).body).toEqual([])
  })

  it("refuses unknown questions (404), another session's (404) and answers that do not fit (400)", async () => {
    const { call, newSession, request } = await waitingOnQuestion()
    const other = await newSession()
    expect(
      (await call("POST", `/question/${unknownQuestionID}/reply`, { answers: [["sqlite"]] })).status,
    ).toBe(404)
    expect((await call("POST", `/question/${unknownQuestionID}/reject`)).status).toBe(404)
    const wrong = { answers: [["sqlite"]], sessionID: other }
    expect((await call("POST", `/question/${request.id}/reply`, wrong)).status).toBe(404)
    expect((await call("POST", `/question/${request.id}/reject`, { sessionID: other })).status).toBe(404)
    const notAnOption = await call("POST", `/question/${request.id}/reply`, { answers: [["mysql"]] })
    expect(notAnOption).toMatchObject({ status: 400, body: { name: "InvalidInputError" } })
    expect(JSON.stringify(notAnOption.body)).toContain('"path":"answers.0"')
    const missing = await call("POST", `/question/${request.id}/reply`, {})
    expect(JSON.stringify(missing.body)).toContain('"path":"answers"')
    expect((await call("GET", "/question")).body).toEqual([request])
  })
})
