import { z } from "zod"
import { CommandInput } from "../command/info.js"
import { schema as id } from "../id/identifier.js"
import { ModelRef } from "../message/part.js"
import { ReplyInput as PermissionReplyInput, Reply } from "../schema/permission.js"
import { PromptInput } from "../schema/prompt.js"
import { ReplyInput as QuestionReplyInput } from "../schema/question.js"
import { CreateInput, DiffInput, MessagesInput, RevertInput, UpdateInput } from "../session/input.js"

// Query strings carry text; the library's inputs take numbers and booleans.
const QueryLimit = z.coerce.number().int().positive().optional()
const QueryFlag = z.enum(["true", "false"]).transform((value) => value === "true")

/**
 * Fields OpenCode's clients send that this library has no use for: a client-made part's ID and
 * times, a session's metadata and workspace. Accepted, so that the clients work, and dropped.
 */
const clientPartFields = {
  id: id("part").optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  source: z.unknown().optional(),
  command: z.string().optional(),
}
const [textPart, filePart, agentPart, subtaskPart] = PromptInput.shape.parts.element.options
const WirePromptPart = z.discriminatedUnion("type", [
  textPart.extend(clientPartFields),
  filePart.extend(clientPartFields),
  agentPart.extend(clientPartFields),
  subtaskPart.extend(clientPartFields),
])

export const inputs = {
  createSession: CreateInput.extend({
    /** OpenCode names a session's model `{ id, providerID }`. */
    model: z
      .object({ id: z.string().min(1), providerID: z.string().min(1), variant: z.string().optional() })
      .optional(),
    workspaceID: z.string().optional(),
  }),
  listSessions: z.strictObject({
    parentID: id("session").optional(),
    limit: QueryLimit,
    /** Only sessions updated at or after this time (ms). */
    start: z.coerce.number().optional(),
    /** Only sessions whose title contains this text, ignoring case. */
    search: z.string().optional(),
    /** Only sessions without a parent. */
    roots: QueryFlag.optional(),
    scope: z.string().optional(),
    path: z.string().optional(),
  }),
  updateSession: UpdateInput.extend({
    /** The time it was archived; 0 restores it. */
    time: z.strictObject({ archived: z.number().int().nonnegative().optional() }).optional(),
  }),
  messages: MessagesInput.extend({ limit: QueryLimit, before: id("message").optional() }),
  prompt: PromptInput.omit({ sessionID: true }).extend({ parts: z.array(WirePromptPart).min(1) }),
  command: CommandInput.omit({ sessionID: true, model: true }).extend({
    /** `"provider/model"`, as OpenCode's clients send it, or `{ providerID, modelID }`. */
    model: z.union([z.string().min(3), ModelRef]).optional(),
    variant: z.string().optional(),
    parts: z.array(z.unknown()).optional(),
  }),
  shell: z.strictObject({
    agent: z.string().min(1),
    command: z.string().min(1),
    model: ModelRef.optional(),
    messageID: id("message").optional(),
  }),
  fork: z.strictObject({ messageID: id("message").optional() }),
  summarize: z.strictObject({
    providerID: z.string().optional(),
    modelID: z.string().optional(),
    auto: z.boolean().optional(),
  }),
  revert: RevertInput.omit({ sessionID: true }),
  diff: DiffInput.omit({ sessionID: true }),
  permissionReply: PermissionReplyInput.omit({ requestID: true }).extend({
    sessionID: id("session").optional(),
  }),
  /** The older OpenCode client's reply: `{ response }` at `/session/:sessionID/permissions/:permissionID`. */
  permissionRespond: z.strictObject({ response: Reply }),
  questionReply: QuestionReplyInput.omit({ requestID: true }).extend({ sessionID: id("session").optional() }),
  questionReject: z.strictObject({ sessionID: id("session").optional() }),
  events: z.object({ sessionID: id("session").optional() }),
  // What the AI SDK's useChat transport posts; chatHandler validates the messages themselves.
  chat: z.object({ id: z.string().optional(), messages: z.array(z.unknown()) }),
}
