import type { Context, Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import { SnapshotUnavailableError } from "../snapshot/errors.js"
import { inputs } from "./inputs.js"
import { readBody, readID, readQuery, readSessionID } from "./request-input.js"
import { documented } from "./route-doc.js"
import { toWireDiff, WireFileDiff } from "./wire/diff.js"
import { toWireMessage, WireWithParts } from "./wire/message.js"
import { toWireSession, WireSession } from "./wire/session.js"
import { toWireTodo, WireTodo } from "./wire/todo.js"

/** The headers a message page may carry, which a browser page reads only when CORS exposes them. */
export const PAGE_HEADERS = ["Link", "X-Next-Cursor"]

/**
 * Names the page before as OpenCode does: its cursor in `X-Next-Cursor`, and the URL that reads
 * it in `Link` (RFC 8288), so a client that follows links needs to know nothing of the cursor.
 */
function pageBefore(c: Context, cursor: string, limit: number): void {
  const next = new URL(c.req.url)
  next.searchParams.set("limit", String(limit))
  next.searchParams.set("before", cursor)
  c.header("X-Next-Cursor", cursor)
  c.header("Link", `<${next.href}>; rel="next"`)
}

/** What a session holds and did: messages, revert and unrevert, diffs, to-dos, usage. */
export function historyRoutes(app: Hono, runtime: Runtime): void {
  messageRoutes(app, runtime)
  changeRoutes(app, runtime)
}

/** The session's messages, a page or one at a time. */
function messageRoutes(app: Hono, runtime: Runtime): void {
  app.get(
    "/session/:sessionID/message",
    documented({
      operationId: "session.messages",
      summary: "The session's messages with their parts, oldest first",
      query: inputs.messages,
      response: z.array(WireWithParts),
    }),
    async (c) => {
      const id = readSessionID(c)
      const { limit, before } = readQuery(c, "session.messages query", inputs.messages)
      // OpenCode's paging: the newest `limit` before the cursor, and the cursor of the page before in a header.
      // Without a cursor, one more than the page tells whether there is a page before it.
      const all = await runtime.session.messages(
        id,
        before === undefined && limit ? { limit: limit + 1 } : {},
      )
      const older = before === undefined ? all : all.filter((message) => message.info.id < before)
      const page = limit === undefined ? older : older.slice(-limit)
      if (page.length < older.length && page[0] && limit !== undefined) pageBefore(c, page[0].info.id, limit)
      return c.json(page.map(toWireMessage))
    },
  )
  app.get(
    "/session/:sessionID/message/:messageID",
    documented({
      operationId: "session.message",
      summary: "One message with its parts",
      response: WireWithParts,
    }),
    async (c) => {
      const id = readSessionID(c)
      const messageID = readID(c, "messageID", "message")
      return c.json(toWireMessage(await runtime.session.message(id, messageID)))
    },
  )
}

/** Revert and unrevert, diffs, to-dos and usage. */
function changeRoutes(app: Hono, runtime: Runtime): void {
  app.post(
    "/session/:sessionID/revert",
    documented({
      operationId: "session.revert",
      summary: "Put files and history back to before a message",
      body: inputs.revert,
      response: WireSession,
    }),
    async (c) => {
      const id = readSessionID(c)
      const input = await readBody(c, "session.revert input", inputs.revert)
      return c.json(toWireSession(await runtime.session.revert({ ...input, sessionID: id })))
    },
  )
  app.post(
    "/session/:sessionID/unrevert",
    documented({ operationId: "session.unrevert", summary: "Undo the revert", response: WireSession }),
    async (c) => c.json(toWireSession(await runtime.session.unrevert({ sessionID: readSessionID(c) }))),
  )
  app.get(
    "/session/:sessionID/diff",
    documented({
      operationId: "session.diff",
      summary: "What the session (or one message's turn) changed",
      query: inputs.diff,
      response: z.array(WireFileDiff),
    }),
    async (c) => {
      const id = readSessionID(c)
      const query = readQuery(c, "session.diff query", inputs.diff)
      const diffs = await runtime.session.diff({ ...query, sessionID: id }).catch((error: unknown) => {
        // Clients ask every session for its diff; without a Snapshot nothing is recorded, so nothing changed that it knows of.
        if (SnapshotUnavailableError.isInstance(error)) return []
        throw error
      })
      return c.json(diffs.map(toWireDiff))
    },
  )
  app.get(
    "/session/:sessionID/todo",
    documented({
      operationId: "session.todo",
      summary: "The session's to-do list",
      response: z.array(WireTodo),
    }),
    async (c) => c.json((await runtime.session.todos(readSessionID(c))).map(toWireTodo)),
  )
  app.get(
    "/session/:sessionID/usage",
    documented({
      operationId: "session.usage",
      summary: "Cost and tokens of the session and its sub-sessions (agentloop's own route)",
      response: z.record(z.string(), z.unknown()),
    }),
    async (c) => c.json(await runtime.session.usage(readSessionID(c))),
  )
}
