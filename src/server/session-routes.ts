import type { Hono } from "hono"
import { z } from "zod"
import type { Runtime } from "../runtime/runtime.js"
import type { SessionInfo } from "../schema/session.js"
import { Status } from "../schema/session.js"
import { inputs } from "./inputs.js"
import { readBody, readQuery, readSessionID } from "./request-input.js"
import { documented } from "./route-doc.js"
import { toWireSession, WireSession } from "./wire/session.js"

const Sessions = z.array(WireSession)

function many(infos: SessionInfo[]) {
  return infos.map(toWireSession)
}

/** Create, list, read, change, fork and delete sessions; which of them are running. */
export function sessionRoutes(app: Hono, runtime: Runtime): void {
  sessionListRoutes(app, runtime)
  oneSessionRoutes(app, runtime)
}

/** Create and list sessions; which of them are running. */
function sessionListRoutes(app: Hono, runtime: Runtime): void {
  app.post(
    "/session",
    documented({
      operationId: "session.create",
      summary: "Create a session",
      body: inputs.createSession,
      response: WireSession,
    }),
    async (c) => {
      const {
        model,
        workspaceID: _,
        ...input
      } = await readBody(c, "session.create input", inputs.createSession)
      const ref = model && { providerID: model.providerID, modelID: model.id }
      return c.json(toWireSession(await runtime.session.create({ ...input, ...(ref ? { model: ref } : {}) })))
    },
  )
  app.get(
    "/session",
    documented({
      operationId: "session.list",
      summary: "List sessions, newest first",
      query: inputs.listSessions,
      response: Sessions,
    }),
    async (c) =>
      c.json(many(await listSessions(runtime, readQuery(c, "session.list query", inputs.listSessions)))),
  )
  app.get(
    "/session/status",
    documented({
      operationId: "session.status",
      summary: "The sessions running or retrying now, by ID (idle ones are absent)",
      response: z.record(z.string(), Status),
    }),
    (c) => c.json(runtime.session.statuses()),
  )
}

/** Read, change, fork and delete one session; its children. */
function oneSessionRoutes(app: Hono, runtime: Runtime): void {
  app.get(
    "/session/:sessionID",
    documented({ operationId: "session.get", summary: "Get a session", response: WireSession }),
    async (c) => c.json(toWireSession(await runtime.session.get(readSessionID(c)))),
  )
  app.patch(
    "/session/:sessionID",
    documented({
      operationId: "session.update",
      summary: "Rename, archive or set rules",
      body: inputs.updateSession,
      response: WireSession,
    }),
    async (c) => {
      const id = readSessionID(c)
      const { time, archived, ...patch } = await readBody(c, "session.update input", inputs.updateSession)
      const stamp = time?.archived
      const archive = archived ?? (stamp === undefined ? undefined : stamp > 0 ? stamp : false)
      const update = { ...patch, ...(archive === undefined ? {} : { archived: archive }) }
      return c.json(toWireSession(await runtime.session.update(id, update)))
    },
  )
  app.delete(
    "/session/:sessionID",
    documented({
      operationId: "session.delete",
      summary: "Delete a session and its children",
      response: z.boolean(),
    }),
    async (c) => {
      await runtime.session.remove(readSessionID(c))
      return c.json(true)
    },
  )
  app.get(
    "/session/:sessionID/children",
    documented({
      operationId: "session.children",
      summary: "The session's child sessions",
      response: Sessions,
    }),
    async (c) => c.json(many(await runtime.session.children(readSessionID(c)))),
  )
  app.post(
    "/session/:sessionID/fork",
    documented({
      operationId: "session.fork",
      summary: "Copy a session, up to a message",
      body: inputs.fork,
      response: WireSession,
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const { messageID } = await readBody(c, "session.fork input", inputs.fork)
      return c.json(toWireSession(await runtime.session.fork({ sessionID, messageID })))
    },
  )
}

/**
 * The library lists by parent and limit; OpenCode's clients also filter by time, title and roots.
 * With a filter, the limit applies to what passes it.
 */
async function listSessions(
  runtime: Runtime,
  query: z.output<typeof inputs.listSessions>,
): Promise<SessionInfo[]> {
  const { parentID, limit, start, search, roots } = query
  const filtered = start !== undefined || search !== undefined || roots === true
  if (!filtered) return runtime.session.list({ parentID, limit })
  const needle = search?.toLowerCase()
  const passing = (await runtime.session.list({ parentID })).filter(
    (info) =>
      (start === undefined || info.time.updated >= start) &&
      (needle === undefined || info.title.toLowerCase().includes(needle)) &&
      (roots !== true || info.parentID === undefined),
  )
  return limit === undefined ? passing : passing.slice(0, limit)
}
