import type { Hono } from "hono"
import { type SSEStreamingApi, streamSSE } from "hono/streaming"
import type { Event } from "../bus/catalog.js"
import type { Runtime } from "../runtime.js"
import { readQuery } from "./request-input.js"
import { routes, schemas } from "./route-specs.js"
import type { ServerEvents } from "./server-events.js"

type StreamDeps = { runtime: Runtime; events: ServerEvents; heartbeatMs: number }
type Outgoing = { type: string; properties: object }

/**
 * `GET /event`: every event as `event: <type>` and `data: <the event as JSON>`, starting with
 * `server.connected` once the subscription is live, so a client knows from when it misses nothing.
 */
export function eventRoute(app: Hono, deps: StreamDeps): void {
  app.get(routes.events.path, (c) => {
    const { sessionID } = readQuery(c, "event query", schemas.events)
    const signal = c.req.raw.signal
    return streamSSE(c, (stream) => pipeEvents(stream, deps, { sessionID, signal }))
  })
}

async function pipeEvents(
  stream: SSEStreamingApi,
  deps: StreamDeps,
  request: { sessionID: string | undefined; signal: AbortSignal },
): Promise<void> {
  // Whichever notices the disconnect first (the response stream or the request) ends it all.
  const stop = new AbortController()
  const abort = () => stop.abort()
  stream.onAbort(abort)
  request.signal.addEventListener("abort", abort, { once: true })
  const { sessionID } = request
  const events = deps.runtime.events.stream({ sessionID, signal: stop.signal })[Symbol.asyncIterator]()
  const unsubscribe = deps.events.subscribe((event) => {
    if (sessionID === undefined || event.properties.sessionID === sessionID) void send(stream, event)
  })
  // A comment keeps proxies from closing an idle stream; EventSource ignores it.
  const heartbeat = setInterval(() => void stream.write(": heartbeat\n\n"), deps.heartbeatMs)
  try {
    await send(stream, { type: "server.connected", properties: {} })
    for (let next = await events.next(); !next.done && !stop.signal.aborted; next = await events.next())
      await send(stream, next.value)
  } finally {
    clearInterval(heartbeat)
    unsubscribe()
    request.signal.removeEventListener("abort", abort)
    stop.abort()
    await events.return?.()
  }
}

function send(stream: SSEStreamingApi, event: Event | Outgoing): Promise<void> {
  return stream.writeSSE({ event: event.type, data: JSON.stringify(event) })
}
