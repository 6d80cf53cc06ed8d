import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { type Event, type MessageV2, type Permission, Tool } from "../../src/index.js"
import { createServer, type RunningServer, serve } from "../../src/server/index.js"
import { createTestRuntime, say, type TestRuntimeOptions, type Turn } from "../../src/testing/index.js"
import { eventually, nextEvent, sseReader, text } from "./helpers.js"

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function start(turns: Turn[], extra: TestRuntimeOptions = {}) {
  const { runtime } = createTestRuntime({ turns, ...extra })
  const app = createServer(runtime)
  const disconnected: string[] = []
  // Records which requests the server saw the client drop, to act only once it has.
  const server = await serve(
    {
      fetch: (request) => {
        request.signal.addEventListener("abort", () => disconnected.push(new URL(request.url).pathname))
        return app.fetch(request)
      },
    },
    { port: 0 },
  )
  running.push(server)
  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    })
  const session = await runtime.session.create()
  return { runtime, server, post, disconnected, sessionID: session.id }
}

describe("serve", () => {
  it("listens on a free port for port 0, on 127.0.0.1 by default", async () => {
    const { server } = await start([])
    expect(server.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    const response = await fetch(`${server.url}/session`)
    expect(response.status).toBe(200)
  })

  it("streams a prompt_async run to an SSE client, filtered, and drops its listeners when the client aborts", async () => {
    const { runtime, server, post, sessionID } = await start([
      [say.text("Streamed over HTTP", { chunks: 3 })],
    ])
    const other = await runtime.session.create()
    const baseline = runtime.events.listenerCount()
    const controller = new AbortController()
    const response = await fetch(`${server.url}/event?sessionID=${sessionID}`, { signal: controller.signal })
    const stream = sseReader(response.body!)
    await stream.until((message) => message.event === "server.connected")
    expect(runtime.events.listenerCount()).toBeGreaterThan(baseline)

    await runtime.session.update(other.id, { title: "not for this client" })
    expect((await post(`/session/${sessionID}/prompt_async`, text("hi"))).status).toBe(204)
    const seen = await stream.until((message) => message.event === "session.idle")
    const types = seen.map((message) => message.event)
    expect(types).toContain("message.part.delta")
    expect(types.at(-1)).toBe("session.idle")
    const sessions = new Set(seen.map(({ data }) => (data as Event).properties.sessionID))
    expect(sessions).toEqual(new Set([sessionID]))

    controller.abort()
    await eventually(() => runtime.events.listenerCount() === baseline)
  })

  it("a client that disconnects from POST /message does not cancel the run; the answer is stored", async () => {
    const deploy = Tool.define("deploy", {
      description: "Deploys",
      parameters: z.object({ target: z.string() }),
      async execute({ target }, context) {
        await context.ask({ permission: "deploy", patterns: [target] })
        return { title: target, output: "deployed", metadata: {} }
      },
    })
    const permission: Permission.Rule[] = [{ permission: "deploy", pattern: "*", action: "ask" }]
    const turns = [[say.toolCall("deploy", { target: "prod" })], [say.text("All done")]]
    const { runtime, post, disconnected, sessionID } = await start(turns, { tools: [deploy], permission })
    const asked = nextEvent(runtime, (event) => event.type === "permission.asked")
    const controller = new AbortController()
    const request = post(`/session/${sessionID}/message`, text("ship it"), controller.signal)
    const { properties } = (await asked) as Extract<Event, { type: "permission.asked" }>
    controller.abort()
    await expect(request).rejects.toThrow()
    await eventually(() => disconnected.includes(`/session/${sessionID}/message`))

    const idle = nextEvent(runtime, (event) => event.type === "session.idle")
    await post(`/permission/${properties.id}/reply`, { reply: "once" })
    await idle
    const last = (await runtime.session.messages(sessionID)).at(-1) as MessageV2.WithParts
    expect(last.info).toMatchObject({ role: "assistant", finish: "stop" })
    expect(last.info.role === "assistant" && last.info.error).toBeUndefined()
    expect(last.parts).toContainEqual(expect.objectContaining({ type: "text", text: "All done" }))
  })

  it("close() ends open event streams instead of waiting for them", async () => {
    const { runtime, server } = await start([])
    const baseline = runtime.events.listenerCount()
    const response = await fetch(`${server.url}/event`)
    const stream = sseReader(response.body!)
    await stream.until((message) => message.event === "server.connected")
    await server.close()
    running.splice(0)
    await expect(stream.next()).rejects.toThrow()
    await eventually(() => runtime.events.listenerCount() === baseline)
  })
})
