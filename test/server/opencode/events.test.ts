import { describe, expect, it } from "vitest"
import { say } from "../../../src/testing/index.js"
import { answer, collect, openapi, startServer } from "./helpers.js"

type Loose = { type: string; id?: string; properties: Record<string, unknown> }

const finalText = (events: Loose[], sessionID: string) =>
  events
    .filter((event) => event.type === "message.part.updated" && event.properties.sessionID === sessionID)
    .map((event) => event.properties.part as { type: string; text?: string })
    .filter((part) => part.type === "text")
    .at(-1)?.text

describe("event streams through OpenCode's SDK clients", () => {
  it("event.subscribe streams a prompt_async run, every event in OpenCode's Event shape", async () => {
    const { v2, older } = await startServer({ turns: [[say.text("Streamed answer")], [say.text("Older")]] })
    const stream = collect((options) => v2.event.subscribe({}, options))
    expect(await stream.connected()).toMatchObject({ type: "server.connected", id: expect.any(String) })
    const { id } = await answer("session.create", v2.session.create({}))
    await answer(
      "session.prompt_async",
      v2.session.promptAsync({ sessionID: id, parts: [{ type: "text", text: "Go" }] }),
    )
    await stream.until((event) => event.type === "session.idle" && event.properties.sessionID === id)

    const events = stream.events as Loose[]
    for (const event of events) openapi.expectEventShape(event)
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length)
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        "session.created",
        "message.updated",
        "message.part.updated",
        "session.status",
      ]),
    )
    expect(finalText(events, id)).toBe("Streamed answer")

    const olderStream = collect((options) => older.event.subscribe(options))
    await olderStream.connected()
    await answer(
      "session.prompt_async",
      older.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: "More" }] } }),
    )
    await olderStream.until((event) => event.type === "session.idle")
    for (const event of olderStream.events) openapi.expectEventShape(event)
    expect(finalText(olderStream.events as Loose[], id)).toBe("Older")
  })

  it("global.event wraps each event as { directory, payload }", async () => {
    const { v2, older, directory } = await startServer({ turns: [[say.text("Global answer")]] })
    const stream = collect((options) => v2.global.event(options))
    const olderStream = collect((options) => older.global.event(options))
    await Promise.all([stream.connected(), olderStream.connected()])
    const { id } = await answer("session.create", v2.session.create({}))
    await answer(
      "session.prompt_async",
      v2.session.promptAsync({ sessionID: id, parts: [{ type: "text", text: "Go" }] }),
    )
    const isIdle = (event: { payload: { type: string } }) => event.payload.type === "session.idle"
    await Promise.all([stream.until(isIdle), olderStream.until(isIdle)])

    for (const event of [...stream.events, ...olderStream.events]) openapi.expectGlobalEventShape(event)
    const created = stream.events.find((event) => event.payload.type === "session.created")
    expect(created).toMatchObject({
      directory,
      payload: { type: "session.created", properties: { sessionID: id } },
    })
    expect(
      finalText(
        stream.events.map((event) => event.payload as Loose),
        id,
      ),
    ).toBe("Global answer")
  })
})
