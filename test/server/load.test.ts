import { describe, expect, it } from "vitest"
import type { Event } from "../../src/index.js"
import { createServer, serve } from "../../src/server/index.js"
import { toWireEvent } from "../../src/server/wire/event.js"
import { createTestRuntime, say, scriptedModel } from "../../src/testing/index.js"
import { eventually, sseReader, text } from "./helpers.js"

const SESSIONS = 20
const CLIENTS = 50
const PROMPTS = 200
const watched = new Set(["message.updated", "message.part.updated"])

/** An event as sent, less what the server stamps on each sending: its `id` and `properties.time`. */
function unstamped(event: unknown) {
  const { id: _, properties, ...rest } = event as { id: string; properties: Record<string, unknown> }
  const { time: __, ...kept } = properties
  return { ...rest, properties: kept }
}

describe("the server under load", () => {
  it(`${CLIENTS} SSE clients and ${PROMPTS} prompts to ${SESSIONS} sessions: no lost events, no leaked listeners`, async () => {
    const model = scriptedModel([], { fallback: [say.text("Answer in three parts", { chunks: 3 })] })
    const { runtime } = createTestRuntime({ model })
    const published = new Map<string, Event[]>()
    runtime.events.onAny((event) => {
      if (!watched.has(event.type)) return
      const sessionID = event.properties.sessionID
      published.set(sessionID, [...(published.get(sessionID) ?? []), event])
    })
    const server = await serve(createServer(runtime), { port: 0 })
    try {
      const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => runtime.session.create()))
      const baseline = runtime.events.listenerCount()

      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, index) => {
          const sessionID = sessions[index % SESSIONS]!.id
          const controller = new AbortController()
          const response = await fetch(`${server.url}/event?sessionID=${sessionID}`, {
            signal: controller.signal,
          })
          const stream = sseReader(response.body!)
          await stream.until((message) => message.event === "server.connected")
          return { sessionID, controller, stream }
        }),
      )

      const answers = await Promise.all(
        Array.from({ length: PROMPTS }, (_, index) => {
          const sessionID = sessions[index % SESSIONS]!.id
          const route = index % 2 === 0 ? "message" : "prompt_async"
          return fetch(`${server.url}/session/${sessionID}/${route}`, {
            method: "POST",
            body: JSON.stringify(text(`prompt ${index}`)),
          }).then(async (response) => {
            await response.arrayBuffer()
            return response.status
          })
        }),
      )
      expect(answers.filter((status) => status !== 200 && status !== 204)).toEqual([])
      await eventually(() => sessions.every((session) => runtime.session.status(session.id).type === "idle"))

      for (const client of clients) {
        const expected = published.get(client.sessionID) ?? []
        const received: { id: string }[] = []
        if (expected.length > 0)
          await client.stream.until((message) => {
            if (watched.has(message.event)) received.push(message.data as { id: string })
            return received.length === expected.length
          })
        expect(received.map(unstamped)).toEqual(
          JSON.parse(JSON.stringify(expected.map((event) => unstamped(toWireEvent(event))))),
        )
        expect(new Set(received.map((event) => event.id)).size).toBe(received.length)
        client.controller.abort()
      }
      await eventually(() => runtime.events.listenerCount() === baseline)
      const users = (await Promise.all(sessions.map((session) => runtime.session.messages(session.id))))
        .flat()
        .filter((message) => message.info.role === "user")
      expect(users).toHaveLength(PROMPTS)
    } finally {
      await server.close()
    }
  }, 20_000)
})
