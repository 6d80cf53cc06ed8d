import type { Hono } from "hono"
import { z } from "zod"
import { NotFoundError } from "../error/not-found.js"
import type { Runtime } from "../runtime/runtime.js"
import { Request as PermissionRequest } from "../schema/permission.js"
import { Request as QuestionRequest } from "../schema/question.js"
import { inputs } from "./inputs.js"
import { readBody, readID, readSessionID } from "./request-input.js"
import { documented } from "./route-doc.js"

type Pending = { id: string; sessionID: string }

/** Pending permission requests and questions, and their answers; each answer says `true`. */
export function askRoutes(app: Hono, runtime: Runtime): void {
  permissionRoutes(app, runtime)
  questionRoutes(app, runtime)
}

/** Pending permission requests and their answers. */
function permissionRoutes(app: Hono, runtime: Runtime): void {
  app.get(
    "/permission",
    documented({
      operationId: "permission.list",
      summary: "Pending permission requests",
      response: z.array(PermissionRequest),
    }),
    async (c) => c.json(await runtime.permission.list()),
  )
  app.post(
    "/permission/:requestID/reply",
    documented({
      operationId: "permission.reply",
      summary: "Answer a permission request",
      body: inputs.permissionReply,
      response: z.boolean(),
    }),
    async (c) => {
      const requestID = readID(c, "requestID", "permission")
      const { sessionID, ...answer } = await readBody(c, "permission reply", inputs.permissionReply)
      requirePending(await runtime.permission.list(), requestID, sessionID, "Permission request")
      await runtime.permission.reply({ requestID, ...answer })
      return c.json(true)
    },
  )
  app.post(
    "/session/:sessionID/permissions/:permissionID",
    documented({
      operationId: "permission.respond",
      summary: "Answer a permission request (the older OpenCode client's route)",
      body: inputs.permissionRespond,
      response: z.boolean(),
    }),
    async (c) => {
      const sessionID = readSessionID(c)
      const requestID = readID(c, "permissionID", "permission")
      const { response } = await readBody(c, "permission response", inputs.permissionRespond)
      requirePending(await runtime.permission.list(), requestID, sessionID, "Permission request")
      await runtime.permission.reply({ requestID, reply: response })
      return c.json(true)
    },
  )
}

/** Pending questions and their answers. */
function questionRoutes(app: Hono, runtime: Runtime): void {
  app.get(
    "/question",
    documented({
      operationId: "question.list",
      summary: "Pending questions",
      response: z.array(QuestionRequest),
    }),
    async (c) => c.json(await runtime.question.list()),
  )
  app.post(
    "/question/:requestID/reply",
    documented({
      operationId: "question.reply",
      summary: "Answer a question",
      body: inputs.questionReply,
      response: z.boolean(),
    }),
    async (c) => {
      const requestID = readID(c, "requestID", "question")
      const { sessionID, answers } = await readBody(c, "question reply", inputs.questionReply)
      requirePending(await runtime.question.list(), requestID, sessionID, "Question")
      await runtime.question.reply({ requestID, answers })
      return c.json(true)
    },
  )
  app.post(
    "/question/:requestID/reject",
    documented({
      operationId: "question.reject",
      summary: "Dismiss a question",
      body: inputs.questionReject,
      response: z.boolean(),
    }),
    async (c) => {
      const requestID = readID(c, "requestID", "question")
      const { sessionID } = await readBody(c, "question reject", inputs.questionReject)
      requirePending(await runtime.question.list(), requestID, sessionID, "Question")
      await runtime.question.reject(requestID)
      return c.json(true)
    },
  )
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
