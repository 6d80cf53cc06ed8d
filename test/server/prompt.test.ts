import { describe, expect, it } from "vitest"
import { type Event, MemoryStorage } from "../../src/index.js"
import { say } from "../../src/testing/index.js"
import { nextEvent, setup, sseReader, text, unknownSessionID } from "./helpers.js"

const idleOf = (sessionID: string) => (event: Event) =>
  event.type === "session.idle" && event.properties.sessionID === sessionID

describe("POST /session/:id/message", () => {
  it("waits for the run and answers the final message", async () => {
    const { call, newSession } = setup({ turns: [[say.text("Hello there")]] })
    const id = await newSession()
    const answer = await call("POST", `/session/${id}/message`, { ...text("hi"), agent: "build" })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      info: { role: "assistant", sessionID: id, finish: "stop" },
      parts: expect.arrayContaining([expect.objectContaining({ type: "text", text: "Hello there" })]),
    })
    // As OpenCode's API answers: the final message only, not the in-process turn result.
    expect(Object.keys(answer.body as object).sort()).toEqual(["info", "parts"])
  })

  it("answers 400 naming the field, for unknown agents and models, and 404 for an unknown session", async () => {
    const { call, newSession, model } = setup()
    const id = await newSession()
    const missing = await call("POST", `/session/${id}/message`, {})
    expect(missing).toMatchObject({ status: 400, body: { name: "InvalidInputError" } })
    expect(JSON.stringify(missing.body)).toContain('"path":"parts"')
    const badPart = await call("POST", `/session/${id}/message`, { parts: [{ type: "text" }] })
    expect(JSON.stringify(badPart.body)).toContain('"path":"parts.0.text"')
    const withSession = await call("POST", `/session/${id}/message`, { ...text("x"), sessionID: id })
    expect(withSession.status).toBe(400)
    const agent = await call("POST", `/session/${id}/message`, { ...text("x"), agent: "nobody" })
    expect(agent).toMatchObject({ status: 400, body: { name: "UnknownAgentError" } })
    const subagent = await call("POST", `/session/${id}/message`, { ...text("x"), agent: "general" })
    expect(subagent).toMatchObject({ status: 400, body: { name: "InvalidInputError" } })
    const modelRef = { providerID: "scripted", modelID: "missing" }
    const unknownModel = await call("POST", `/session/${id}/message`, { ...text("x"), model: modelRef })
    expect(unknownModel).toMatchObject({ status: 400, body: { name: "UnknownModelError" } })
    expect((await call("POST", `/session/${unknownSessionID}/message`, text("x"))).status).toBe(404)
    expect((await call("POST", `/session/${id}/message`, "{ nope")).status).toBe(400)
    expect(model.calls).toHaveLength(0)
  })
})

describe("POST /session/:id/prompt_async", () => {
  it("answers 204 once the prompt is stored, and the run goes on to session.idle", async () => {
    const { call, newSession, runtime } = setup({ turns: [[say.text("Later")]] })
    const id = await newSession()
    const idle = nextEvent(runtime, idleOf(id))
    const answer = await call("POST", `/session/${id}/prompt_async`, text("hi"))
    expect(answer).toMatchObject({ status: 204, body: undefined })
    await idle
    const messages = await runtime.session.messages(id)
    expect(messages.at(-1)?.parts).toContainEqual(expect.objectContaining({ type: "text", text: "Later" }))
  })

  it("answers a refusal before the prompt is stored like /message does", async () => {
    const { call, newSession, runtime } = setup()
    const id = await newSession()
    expect((await call("POST", `/session/${id}/prompt_async`, {})).status).toBe(400)
    const agent = await call("POST", `/session/${id}/prompt_async`, { ...text("x"), agent: "nobody" })
    expect(agent).toMatchObject({ status: 400, body: { name: "UnknownAgentError" } })
    expect((await call("POST", `/session/${unknownSessionID}/prompt_async`, text("x"))).status).toBe(404)
    expect(await runtime.session.messages(id)).toEqual([])
  })

  it("publishes a failure after the 204 as session.error on /event, never as an unhandled rejection", async () => {
    class FailingStorage extends MemoryStorage {
      override async write(writes: Parameters<MemoryStorage["write"]>[0]) {
        if (writes.some((write) => write.type === "message.put" && write.info.role === "assistant"))
          throw new Error("disk full")
        return super.write(writes)
      }
    }
    const { app, call, newSession } = setup({ storage: new FailingStorage(), turns: [[say.text("x")]] })
    const id = await newSession()
    const response = await app.request(`/event?sessionID=${id}`)
    const events = sseReader(response.body!)
    await events.until((message) => message.event === "server.connected")
    expect((await call("POST", `/session/${id}/prompt_async`, text("hi"))).status).toBe(204)
    const seen = await events.until((message) => message.event === "session.error")
    expect(seen.at(-1)?.data).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "session.error",
      properties: { sessionID: id, error: { name: "UnknownError", data: { message: "disk full" } } },
    })
    await events.cancel()
  })
})

describe("POST /session/:id/command", () => {
  it("runs the command and answers the final message; unknown commands are 400", async () => {
    const commands = { greet: { template: "Say hello to $ARGUMENTS" } }
    const { call, newSession, model } = setup({ commands, turns: [[say.text("Hello, Ada")]] })
    const id = await newSession()
    const answer = await call("POST", `/session/${id}/command`, { command: "greet", arguments: "Ada" })
    expect(answer).toMatchObject({ status: 200, body: { info: { role: "assistant" } } })
    expect(JSON.stringify(model.calls[0]!.prompt)).toContain("Say hello to Ada")
    const unknown = await call("POST", `/session/${id}/command`, { command: "nope" })
    expect(unknown).toMatchObject({
      status: 400,
      body: { name: "UnknownCommandError", data: { known: ["greet"] } },
    })
    const missing = await call("POST", `/session/${id}/command`, {})
    expect(JSON.stringify(missing.body)).toContain('"path":"command"')
    expect((await call("POST", `/session/${unknownSessionID}/command`, { command: "greet" })).status).toBe(
      404,
    )
  })
})

describe("POST /session/:id/abort", () => {
  it("cancels the run: true, and the answer ends as aborted", async () => {
    const { call, newSession, runtime } = setup({ turns: [[say.text("Thinking"), say.delay(600_000)]] })
    const id = await newSession()
    const started = nextEvent(runtime, (event) => event.type === "message.part.delta")
    const idle = nextEvent(runtime, idleOf(id))
    expect((await call("POST", `/session/${id}/prompt_async`, text("go"))).status).toBe(204)
    await started
    expect(await call("POST", `/session/${id}/abort`)).toMatchObject({ status: 200, body: true })
    await idle
    const last = (await runtime.session.messages(id)).at(-1)
    expect(last?.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } })
    // Over HTTP the error carries OpenCode's name, and the message its agent as `mode`.
    const wire = (await call("GET", `/session/${id}/message`)).body as { info: object }[]
    expect(wire.at(-1)?.info).toMatchObject({
      role: "assistant",
      mode: "build",
      error: { name: "MessageAbortedError" },
    })
    expect(await call("POST", `/session/${id}/abort`)).toMatchObject({ status: 200, body: true })
    expect((await call("POST", `/session/${unknownSessionID}/abort`)).status).toBe(404)
  })
})
