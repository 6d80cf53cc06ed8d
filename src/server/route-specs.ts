import { z } from "zod"
import { CommandInput } from "../command/input.js"
import { schema as id } from "../id/identifier.js"
import { PromptInput } from "../loop/prompt-input.js"
import { WithParts } from "../message/info.js"
import { ReplyInput as PermissionReplyInput } from "../permission/input.js"
import { Request as PermissionRequest } from "../permission/schema.js"
import { ReplyInput as QuestionReplyInput } from "../question/input.js"
import { Request as QuestionRequest } from "../question/schema.js"
import { Info as SessionInfo } from "../session/info.js"
import {
  CreateInput,
  DiffInput,
  ListInput,
  MessagesInput,
  RevertInput,
  UpdateInput,
} from "../session/input.js"
import { Todo } from "../session/todo.js"
import { FileDiff } from "../snapshot/schema.js"

export type Method = "get" | "post" | "patch" | "delete"

/** One route as the OpenAPI document describes it; the handlers parse with the same schemas. */
export type RouteSpec = {
  method: Method
  /** Hono's form: `/session/:id`. */
  path: string
  summary: string
  body?: z.ZodType
  query?: z.ZodType
  response: { status: number; description: string; schema?: z.ZodType }
}

// Query strings carry text; the library's inputs take numbers.
const QueryLimit = z.coerce.number().int().positive().optional()
/** The session a reply claims its request belongs to; checked when given. */
const SessionScope = { sessionID: id("session").optional() }

export const schemas = {
  createSession: CreateInput,
  listSessions: ListInput.extend({ limit: QueryLimit }),
  updateSession: UpdateInput,
  messages: MessagesInput.extend({ limit: QueryLimit }),
  prompt: PromptInput.omit({ sessionID: true }),
  command: CommandInput.omit({ sessionID: true }),
  revert: RevertInput.omit({ sessionID: true }),
  diff: DiffInput.omit({ sessionID: true }),
  permissionReply: PermissionReplyInput.omit({ requestID: true }).extend(SessionScope),
  questionReply: QuestionReplyInput.omit({ requestID: true }).extend(SessionScope),
  questionReject: z.strictObject(SessionScope),
  events: z.object(SessionScope),
  // What the AI SDK's useChat transport posts; chatHandler validates the messages themselves.
  chat: z.object({ id: z.string().optional(), messages: z.array(z.unknown()) }),
}

const ok = (description: string, schema?: z.ZodType) => ({
  status: 200,
  description,
  ...(schema ? { schema } : {}),
})
const noContent = (description: string) => ({ status: 204, description })
const sessions = z.array(SessionInfo)

export const routes = {
  createSession: {
    method: "post",
    path: "/session",
    summary: "Create a session",
    body: schemas.createSession,
    response: ok("The new session", SessionInfo),
  },
  listSessions: {
    method: "get",
    path: "/session",
    summary: "List sessions, newest first",
    query: schemas.listSessions,
    response: ok("The sessions", sessions),
  },
  getSession: {
    method: "get",
    path: "/session/:id",
    summary: "Get a session",
    response: ok("The session", SessionInfo),
  },
  updateSession: {
    method: "patch",
    path: "/session/:id",
    summary: "Rename, archive or set rules",
    body: schemas.updateSession,
    response: ok("The updated session", SessionInfo),
  },
  deleteSession: {
    method: "delete",
    path: "/session/:id",
    summary: "Delete a session and its children",
    response: noContent("Deleted"),
  },
  children: {
    method: "get",
    path: "/session/:id/children",
    summary: "The session's child sessions",
    response: ok("The children", sessions),
  },
  messages: {
    method: "get",
    path: "/session/:id/message",
    summary: "The session's messages with their parts",
    query: schemas.messages,
    response: ok("The messages", z.array(WithParts)),
  },
  prompt: {
    method: "post",
    path: "/session/:id/message",
    summary: "Prompt and wait for the answer",
    body: schemas.prompt,
    response: ok("The final message", WithParts),
  },
  promptAsync: {
    method: "post",
    path: "/session/:id/prompt_async",
    summary: "Prompt and return at once; follow the run on /event",
    body: schemas.prompt,
    response: noContent("The prompt was stored; the run goes on"),
  },
  chat: {
    method: "post",
    path: "/session/:id/chat",
    summary: "Prompt with the last user message of an AI SDK useChat request; answers its UI message stream",
    body: schemas.chat,
    response: ok("text/event-stream of AI SDK UI message chunks"),
  },
  command: {
    method: "post",
    path: "/session/:id/command",
    summary: "Run a slash command and wait for the answer",
    body: schemas.command,
    response: ok("The final message", WithParts),
  },
  abort: {
    method: "post",
    path: "/session/:id/abort",
    summary: "Cancel the session's run",
    response: noContent("Cancelled (or nothing was running)"),
  },
  revert: {
    method: "post",
    path: "/session/:id/revert",
    summary: "Put files and history back to before a message",
    body: schemas.revert,
    response: ok("The session with its revert", SessionInfo),
  },
  unrevert: {
    method: "post",
    path: "/session/:id/unrevert",
    summary: "Undo the revert",
    response: ok("The session", SessionInfo),
  },
  diff: {
    method: "get",
    path: "/session/:id/diff",
    summary: "What the session (or one message's turn) changed",
    query: schemas.diff,
    response: ok("The file diffs", z.array(FileDiff)),
  },
  todos: {
    method: "get",
    path: "/session/:id/todo",
    summary: "The session's to-do list",
    response: ok("The to-dos", z.array(Todo)),
  },
  usage: {
    method: "get",
    path: "/session/:id/usage",
    summary: "Cost and tokens of the session and its sub-sessions",
    response: ok("{ cost, tokens, total: { cost, tokens } }"),
  },
  permissions: {
    method: "get",
    path: "/permission",
    summary: "Pending permission requests",
    response: ok("The requests", z.array(PermissionRequest)),
  },
  permissionReply: {
    method: "post",
    path: "/permission/:requestID/reply",
    summary: "Answer a permission request",
    body: schemas.permissionReply,
    response: noContent("Answered"),
  },
  questions: {
    method: "get",
    path: "/question",
    summary: "Pending questions",
    response: ok("The questions", z.array(QuestionRequest)),
  },
  questionReply: {
    method: "post",
    path: "/question/:requestID/reply",
    summary: "Answer a question",
    body: schemas.questionReply,
    response: noContent("Answered"),
  },
  questionReject: {
    method: "post",
    path: "/question/:requestID/reject",
    summary: "Dismiss a question",
    body: schemas.questionReject,
    response: noContent("Dismissed"),
  },
  events: {
    method: "get",
    path: "/event",
    summary: "Server-sent events: every runtime event, or one session's",
    query: schemas.events,
    response: ok("text/event-stream of { type, properties }"),
  },
  doc: { method: "get", path: "/doc", summary: "This OpenAPI document", response: ok("OpenAPI 3.1 JSON") },
} satisfies Record<string, RouteSpec>
