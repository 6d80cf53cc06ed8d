import { describe, expect, it } from "vitest"
import { say } from "../../../src/testing/index.js"
import { nextEvent } from "../helpers.js"
import {
  answer,
  askDeploy,
  collect,
  deploy,
  eventually,
  openapi,
  refusal,
  startServer,
  textOf,
} from "./helpers.js"

const pick = {
  question: "Which database?",
  header: "Database",
  options: [
    { label: "postgres", description: "Server" },
    { label: "sqlite", description: "File" },
  ],
  custom: false,
}

/**
 * A session whose prompt_async run now waits on a permission request, found through
 * permission.list; `events` has followed /event since before the prompt.
 */
async function waitingOnPermission() {
  const context = await startServer({
    tools: [deploy],
    permission: askDeploy,
    turns: [[say.toolCall("deploy", { target: "prod" })], [say.text("Deployed")]],
  })
  const { v2, runtime } = context
  const events = collect((options) => v2.event.subscribe({}, options))
  await events.connected()
  const { id } = await answer("session.create", v2.session.create({}))
  const asked = nextEvent(runtime, (event) => event.type === "permission.asked")
  await answer(
    "session.prompt_async",
    v2.session.promptAsync({ sessionID: id, parts: [{ type: "text", text: "Ship" }] }),
  )
  await asked
  const list = await answer("permission.list", v2.permission.list())
  expect(list).toEqual([expect.objectContaining({ sessionID: id, permission: "deploy", patterns: ["prod"] })])
  return { ...context, events, sessionID: id, request: list[0]! }
}

async function lastAnswer(context: Awaited<ReturnType<typeof startServer>>, sessionID: string) {
  await eventually(() => context.runtime.session.status(sessionID).type === "idle")
  const messages = await answer("session.messages", context.v2.session.messages({ sessionID }))
  return messages.at(-1)!
}

describe("permissions through OpenCode's SDK clients", () => {
  it("permission.reply 'once' answers true and the run completes", async () => {
    const context = await waitingOnPermission()
    const { v2, request, sessionID } = context
    expect(
      await answer("permission.reply", v2.permission.reply({ requestID: request.id, reply: "once" })),
    ).toBe(true)
    expect(textOf(await lastAnswer(context, sessionID))).toBe("Deployed")
    expect(await answer("permission.list", v2.permission.list())).toEqual([])
    expect(await expectEventsInShape(context, sessionID)).toEqual(
      expect.arrayContaining(["permission.asked", "permission.replied"]),
    )
  })

  it("a rejected permission ends the turn", async () => {
    const context = await waitingOnPermission()
    const { v2, request, sessionID, model } = context
    // Without a message: a reject with one is feedback, and the run goes on with it (as in OpenCode).
    const reply = v2.permission.reply({ requestID: request.id, reply: "reject" })
    expect(await answer("permission.reply", reply)).toBe(true)
    const last = await lastAnswer(context, sessionID)
    const tool = last.parts.find((part) => part.type === "tool")
    expect(tool?.type === "tool" ? tool.state.status : undefined).toBe("error")
    expect(model.remaining).toBe(1) // "Deployed" was never played: the turn ended at the refusal
  })

  it("the older client's POST /session/:id/permissions/:permissionID answers true", async () => {
    const context = await waitingOnPermission()
    const { older, request, sessionID } = context
    const respond = older.postSessionIdPermissionsPermissionId({
      path: { id: sessionID, permissionID: request.id },
      body: { response: "once" },
    })
    expect(await answer("permission.respond", respond)).toBe(true)
    expect(textOf(await lastAnswer(context, sessionID))).toBe("Deployed")
  })

  it("the v2 client's permission.respond answers true", async () => {
    const context = await waitingOnPermission()
    const { v2, request, sessionID } = context
    const respond = v2.permission.respond({ sessionID, permissionID: request.id, response: "always" })
    expect(await answer("permission.respond", respond)).toBe(true)
    expect(textOf(await lastAnswer(context, sessionID))).toBe("Deployed")
  })

  it("refuses a reply to a request that is not pending with 404", async () => {
    const { v2 } = await startServer()
    const unknown = await refusal(v2.permission.reply({ requestID: `per_${"0".repeat(26)}`, reply: "once" }))
    expect(unknown.status).toBe(404)
  })
})

/** A session whose prompt_async run now waits on a question, found through question.list; `events` as above. */
async function waitingOnQuestion() {
  const context = await startServer({
    question: true,
    turns: [[say.toolCall("question", { questions: [pick] })], [say.text("Noted")]],
  })
  const { v2, runtime } = context
  const events = collect((options) => v2.event.subscribe({}, options))
  await events.connected()
  const { id } = await answer("session.create", v2.session.create({}))
  const asked = nextEvent(runtime, (event) => event.type === "question.asked")
  await answer(
    "session.prompt_async",
    v2.session.promptAsync({ sessionID: id, parts: [{ type: "text", text: "Set up" }] }),
  )
  await asked
  const list = await answer("question.list", v2.question.list())
  expect(list).toEqual([
    expect.objectContaining({ sessionID: id, questions: [expect.objectContaining(pick)] }),
  ])
  return { ...context, events, sessionID: id, request: list[0]! }
}

/** Waits for the session's idle event, then checks every event the stream carried against OpenCode's Event. */
async function expectEventsInShape(
  context: { events: ReturnType<typeof collect<{ type: string }>> },
  sessionID: string,
) {
  const idle = (event: { type: string; properties?: unknown }) =>
    event.type === "session.idle" && (event.properties as { sessionID?: string }).sessionID === sessionID
  await context.events.until(idle)
  for (const event of context.events.events) openapi.expectEventShape(event)
  return context.events.events.map((event) => event.type)
}

describe("questions through OpenCode's SDK clients", () => {
  it("question.reply answers true and the run goes on with the answer", async () => {
    const context = await waitingOnQuestion()
    const { v2, request, sessionID, model } = context
    expect(
      await answer("question.reply", v2.question.reply({ requestID: request.id, answers: [["sqlite"]] })),
    ).toBe(true)
    expect(textOf(await lastAnswer(context, sessionID))).toBe("Noted")
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("sqlite")
    expect(await expectEventsInShape(context, sessionID)).toEqual(
      expect.arrayContaining(["question.asked", "question.replied"]),
    )
  })

  it("question.reject answers true and the question is gone", async () => {
    const context = await waitingOnQuestion()
    const { v2, request, sessionID } = context
    expect(await answer("question.reject", v2.question.reject({ requestID: request.id }))).toBe(true)
    await lastAnswer(context, sessionID)
    expect(await answer("question.list", v2.question.list())).toEqual([])
    expect(await expectEventsInShape(context, sessionID)).toContain("question.rejected")
  })
})
