import type { Hono } from "hono"
import type { Runtime } from "../runtime.js"
import { readBody, readQuery, readSessionID as sessionID } from "./request-input.js"
import { routes, schemas } from "./route-specs.js"

/** Create, list, read, change and delete sessions. */
export function sessionRoutes(app: Hono, runtime: Runtime): void {
  app.post(routes.createSession.path, async (c) => {
    const input = await readBody(c, "session.create input", schemas.createSession)
    return c.json(await runtime.session.create(input))
  })
  app.get(routes.listSessions.path, async (c) => {
    return c.json(await runtime.session.list(readQuery(c, "session.list query", schemas.listSessions)))
  })
  app.get(routes.getSession.path, async (c) => c.json(await runtime.session.get(sessionID(c))))
  app.patch(routes.updateSession.path, async (c) => {
    const id = sessionID(c)
    const patch = await readBody(c, "session.update input", schemas.updateSession)
    return c.json(await runtime.session.update(id, patch))
  })
  app.delete(routes.deleteSession.path, async (c) => {
    await runtime.session.remove(sessionID(c))
    return c.body(null, 204)
  })
  app.get(routes.children.path, async (c) => c.json(await runtime.session.children(sessionID(c))))
}
