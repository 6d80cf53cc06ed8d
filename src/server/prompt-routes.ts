import type { Hono } from "hono"
import type { WithParts } from "../message/info.js"
import type { Runtime } from "../runtime.js"
import { readBody, readSessionID } from "./request-input.js"
import { routes, schemas } from "./route-specs.js"
import type { ServerEvents } from "./server-events.js"
import { asAssistantError, startPrompt } from "./start-prompt.js"

/**
 * Work for a session: prompt (waiting or not), command, abort. None of them is tied to the
 * request: a client that disconnects does not cancel the run, only `abort` does.
 */
export function promptRoutes(app: Hono, runtime: Runtime, events: ServerEvents): void {
  app.post(routes.prompt.path, async (c) => {
    const sessionID = readSessionID(c)
    const input = await readBody(c, "session.prompt input", schemas.prompt)
    return c.json(finalMessage(await runtime.session.prompt({ ...input, sessionID })))
  })
  app.post(routes.promptAsync.path, async (c) => {
    const sessionID = readSessionID(c)
    const input = await readBody(c, "session.prompt input", schemas.prompt)
    await startPrompt(runtime, { ...input, sessionID }, (error) => {
      events.publish({ type: "session.error", properties: { sessionID, error: asAssistantError(error) } })
    })
    return c.body(null, 204)
  })
  app.post(routes.command.path, async (c) => {
    const sessionID = readSessionID(c)
    const input = await readBody(c, "session.command input", schemas.command)
    return c.json(finalMessage(await runtime.session.command({ ...input, sessionID })))
  })
  app.post(routes.abort.path, async (c) => {
    const sessionID = readSessionID(c)
    await runtime.session.cancel(sessionID)
    return c.body(null, 204)
  })
}

/** The routes answer with the final message, as OpenCode's API does; the turn result stays in process. */
function finalMessage({ info, parts }: WithParts): WithParts {
  return { info, parts }
}
