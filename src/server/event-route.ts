import type { Hono } from "hono"
import { type SSEStreamingApi, streamSSE } from "hono/streaming"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import type { Event } from "../schema/events.js"
import { inputs } from "./inputs.js"
import { readQuery } from "./request-input.js"
import { documented } from "./route-doc.js"
import type { ServerEvents } from "./server-events.js"
import { toWireEvent, type WireEvent } from "./wire/event.js"
import { PROJECT_ID } from "./wire/session.js"

type StreamDeps = { runtime: Runtime; events: ServerEvents; heartbeatMs: number }

const WireEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  properties: z.record(z.string(), z.unknown()),
})

/**
 * `GET /event`: every event as `event: <type>` and `data: <the event as JSON>`, starting with
 * `server.connected` once the subscription is live, so a client knows from when it misses nothing.
 * `GET /global/event`: the same events wrapped as OpenCode's terminal UI reads them,
 * `{ directory, project, payload }`.
 */
export function eventRoutes(app: Hono, deps: StreamDeps): void {
  app.get(
    "/event",
    documented({
      operationId: "event.subscribe",
      summary: "Server-sent events: every runtime event, or one session's",
      query: inputs.events,
      stream: { media: "text/event-stream", schema: WireEventSchema },
    }),
    (c) => {
      const { sessionID } = readQuery(c, "event query", inputs.events)
      const signal = c.req.raw.signal
      return streamHeaders(
        streamSSE(c, (stream) => pipeEvents(stream, deps, { sessionID, signal, wrap: (event) => event })),
      )
    },
  )
  const location = { directory: deps.runtime.directory, project: PROJECT_ID }
  app.get(
    "/global/event",
    documented({
      operationId: "global.event",
      summary: "Server-sent events of every directory, each as { directory, project, payload }",
      stream: {
        media: "text/event-stream",
        schema: z.object({ directory: z.string(), project: z.string(), payload: WireEventSchema }),
      },
    }),
    (c) => {
      const signal = c.req.raw.signal
      const wrap = (payload: WireEvent) => ({ ...location, payload })
      return streamHeaders(
        streamSSE(c, (stream) => pipeEvents(stream, deps, { sessionID: undefined, signal, wrap })),
      )
    },
  )
}

/**
 * OpenCode's headers of an event stream: a proxy (nginx) buffers a response, or compresses it,
 * unless told not to, and events then arrive late and in bursts. Set after `streamSSE`, which
 * sets its own Cache-Control.
 */
function streamHeaders(response: Response): Response {
  response.headers.set("Cache-Control", "no-cache, no-transform")
  response.headers.set("X-Accel-Buffering", "no")
  response.headers.set("X-Content-Type-Options", "nosniff")
  return response
}

async function pipeEvents(
  stream: SSEStreamingApi,
  deps: StreamDeps,
  request: { sessionID: string | undefined; signal: AbortSignal; wrap: (event: WireEvent) => object },
): Promise<void> {
  // Whichever notices the disconnect first (the response stream or the request) ends it all.
  const stop = new AbortController()
  const abort = () => stop.abort()
  stream.onAbort(abort)
  request.signal.addEventListener("abort", abort, { once: true })
  const { sessionID, wrap } = request
  const send = (event: WireEvent) => stream.writeSSE({ event: event.type, data: JSON.stringify(wrap(event)) })
  const events = deps.runtime.events.stream({ sessionID, signal: stop.signal })[Symbol.asyncIterator]()
  const unsubscribe = deps.events.subscribe((event: Event) => {
    if (sessionID === undefined || event.properties.sessionID === sessionID) void send(toWireEvent(event))
  })
  // A comment keeps proxies from closing an idle stream; EventSource ignores it.
  const heartbeat = setInterval(() => void stream.write(": heartbeat\n\n"), deps.heartbeatMs)
  try {
    await send(toWireEvent({ type: "server.connected", properties: {} }))
    for (let next = await events.next(); !next.done && !stop.signal.aborted; next = await events.next())
      await send(toWireEvent(next.value))
  } finally {
    clearInterval(heartbeat)
    unsubscribe()
    request.signal.removeEventListener("abort", abort)
    stop.abort()
    await events.return?.()
  }
}
