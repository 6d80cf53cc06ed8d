import { describe, expect, it } from "vitest"
import { say } from "../../src/testing/index.js"
import { eventually, setup, sseReader, text } from "./helpers.js"

async function connect(app: ReturnType<typeof setup>["app"], query = "") {
  const response = await app.request(`/event${query}`)
  expect(response.headers.get("content-type")).toBe("text/event-stream")
  const reader = sseReader(response.body!)
  await reader.until((message) => message.event === "server.connected")
  return reader
}

describe("GET /event", () => {
  it("streams each event as `event: <type>` with the whole event as data, filtered by ?sessionID=", async () => {
    const { app, call, newSession, runtime } = setup({
      turns: [[say.text("x")], [say.text("One two", { chunks: 2 })]],
    })
    const id = await newSession()
    const other = await newSession()
    const stream = await connect(app, `?sessionID=${id}`)
    await call("POST", `/session/${other}/message`, text("elsewhere"))
    await call("POST", `/session/${id}/message`, text("here"))
    const seen = await stream.until((message) => message.event === "session.idle")
    expect(seen.every(({ event, data }) => (data as { type: string }).type === event)).toBe(true)
    expect(
      seen.every(({ data }) => (data as { properties: { sessionID: string } }).properties.sessionID === id),
    ).toBe(true)
    const deltas = seen.filter((message) => message.event === "message.part.delta")
    expect(
      deltas.map(({ data }) => (data as { properties: { delta: string } }).properties.delta).join(""),
    ).toBe("One two")
    await stream.cancel()
    await eventually(() => runtime.events.listenerCount() === 0)
  })

  it("streams every session's events without ?sessionID=", async () => {
    const { app, call, newSession } = setup({ turns: [[say.text("a")], [say.text("b")]] })
    const stream = await connect(app)
    const first = await newSession()
    const second = await newSession()
    await call("POST", `/session/${first}/message`, text("1"))
    await call("POST", `/session/${second}/message`, text("2"))
    const seen = await stream.until(
      (message) =>
        message.event === "session.idle" &&
        (message.data as { properties: { sessionID: string } }).properties.sessionID === second,
    )
    const sessions = new Set(
      seen.map(({ data }) => (data as { properties: { sessionID?: string } }).properties.sessionID),
    )
    expect(sessions).toEqual(new Set([first, second]))
    await stream.cancel()
  })

  it("sends a heartbeat comment every heartbeatMs and stops its timer on disconnect", async () => {
    const { app, runtime } = setup({ server: { heartbeatMs: 5 } })
    const response = await app.request("/event")
    const stream = sseReader(response.body!)
    let message = await stream.next()
    while (message && !("comment" in message)) message = await stream.next()
    expect(message).toEqual({ comment: "heartbeat" })
    await stream.cancel()
    await eventually(() => runtime.events.listenerCount() === 0)
  })

  it("ends the stream when the runtime closes", async () => {
    const { app, runtime } = setup()
    const stream = await connect(app)
    await runtime.close()
    let message = await stream.next()
    while (message) message = await stream.next()
    expect(runtime.events.listenerCount()).toBe(0)
  })

  it("answers 400 for a ?sessionID= that is not a session ID", async () => {
    const { call } = setup()
    const answer = await call("GET", "/event?sessionID=nope")
    expect(answer.status).toBe(400)
    expect(JSON.stringify(answer.body)).toContain('"path":"sessionID"')
  })
})
