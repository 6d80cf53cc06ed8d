import type { Hono } from "hono"
import type { Runtime } from "../runtime.js"
import { readBody, readQuery, readSessionID } from "./request-input.js"
import { routes, schemas } from "./route-specs.js"

/** What a session holds and did: messages, revert and unrevert, diffs, to-dos, usage. */
export function historyRoutes(app: Hono, runtime: Runtime): void {
  app.get(routes.messages.path, async (c) => {
    const id = readSessionID(c)
    const query = readQuery(c, "session.messages query", schemas.messages)
    return c.json(await runtime.session.messages(id, query))
  })
  app.post(routes.revert.path, async (c) => {
    const id = readSessionID(c)
    const input = await readBody(c, "session.revert input", schemas.revert)
    return c.json(await runtime.session.revert({ ...input, sessionID: id }))
  })
  app.post(routes.unrevert.path, async (c) =>
    c.json(await runtime.session.unrevert({ sessionID: readSessionID(c) })),
  )
  app.get(routes.diff.path, async (c) => {
    const id = readSessionID(c)
    const query = readQuery(c, "session.diff query", schemas.diff)
    return c.json(await runtime.session.diff({ ...query, sessionID: id }))
  })
  app.get(routes.todos.path, async (c) => c.json(await runtime.session.todos(readSessionID(c))))
  app.get(routes.usage.path, async (c) => c.json(await runtime.session.usage(readSessionID(c))))
}
