import type { Hono } from "hono"
import { NotFoundError } from "../error/not-found.js"
import type { Runtime } from "../runtime.js"
import { readBody, readID } from "./request-input.js"
import { routes, schemas } from "./route-specs.js"

type Pending = { id: string; sessionID: string }

/** Pending permission requests and questions, and their answers. */
export function askRoutes(app: Hono, runtime: Runtime): void {
  app.get(routes.permissions.path, async (c) => c.json(await runtime.permission.list()))
  app.post(routes.permissionReply.path, async (c) => {
    const requestID = readID(c, "requestID", "permission")
    const { sessionID, ...answer } = await readBody(c, "permission reply", schemas.permissionReply)
    requirePending(await runtime.permission.list(), requestID, sessionID, "Permission request")
    await runtime.permission.reply({ requestID, ...answer })
    return c.body(null, 204)
  })

  app.get(routes.questions.path, async (c) => c.json(await runtime.question.list()))
  app.post(routes.questionReply.path, async (c) => {
    const requestID = readID(c, "requestID", "question")
    const { sessionID, answers } = await readBody(c, "question reply", schemas.questionReply)
    requirePending(await runtime.question.list(), requestID, sessionID, "Question")
    await runtime.question.reply({ requestID, answers })
    return c.body(null, 204)
  })
  app.post(routes.questionReject.path, async (c) => {
    const requestID = readID(c, "requestID", "question")
    const { sessionID } = await readBody(c, "question reject", schemas.questionReject)
    requirePending(await runtime.question.list(), requestID, sessionID, "Question")
    await runtime.question.reject(requestID)
    return c.body(null, 204)
  })
}

/**
 * The request must be pending, and in the session the client named if it named one. A request
 * of another session is "not found" too, so a client learns nothing about sessions it did not name.
 */
function requirePending(pending: Pending[], requestID: string, sessionID: string | undefined, kind: string) {
  const request = pending.find((candidate) => candidate.id === requestID)
  if (!request) throw NotFoundError.of(kind, requestID)
  if (sessionID !== undefined && request.sessionID !== sessionID)
    throw new NotFoundError({
      id: requestID,
      message: `${kind} ${requestID} not found in session ${sessionID}`,
    })
}
