import { createUIMessageStreamResponse, safeValidateUIMessages, type UIMessage } from "ai"
import { z } from "zod"
import { InvalidInputError, parseInput } from "../error/invalid-input.js"
import { truncate } from "../error/quote.js"
import { parseID } from "../id/parse-id.js"
import { ModelRef } from "../message/part.js"
import type { Runtime } from "../runtime/runtime.js"
import type { PromptInput } from "../schema/prompt.js"
import { toErrorBody } from "./error-status.js"
import { toUIMessageStream } from "./ui-stream.js"

/** Options of `chatHandler`. The server's `POST /session/:id/chat` route uses the defaults. */
export type ChatHandlerOptions = {
  /**
   * How often a comment keeps the response alive while nothing streams (a permission dialog
   * waiting for the user), so that proxies do not close it. Default 15 s.
   */
  keepAliveMs?: number
}

/** What `useChat`'s default transport posts, plus the agent or model a page may add through `body`. */
const ChatBody = z.looseObject({
  id: z.string().optional(),
  messages: z.array(z.unknown()).min(1),
  agent: z.string().min(1).optional(),
  model: ModelRef.optional(),
})

type PromptPart = PromptInput["parts"][number]

/**
 * A request handler for AI SDK UI's `useChat` (its default `DefaultChatTransport`): the last user
 * message's text and files prompt the session, and the response streams that run. The session
 * is the route's `sessionID` if given, else the chat's `id`; it must exist (404 otherwise): the
 * page creates it first (`POST /session`) and passes its ID as the chat's `id`. Earlier messages
 * are not read: the session keeps its own history. A malformed body answers 400 with
 * `{ name: "InvalidInputError", data }`; a prompt refused later (unknown agent or model) shows
 * as the stream's error. Mounted by the server as `POST /session/:id/chat`.
 */
export function chatHandler(
  runtime: Runtime,
  options: ChatHandlerOptions = {},
): (request: Request, sessionID?: string) => Promise<Response> {
  return async (request, routeSessionID) => {
    try {
      const body = parseInput("chat request", ChatBody, await readJSON(request))
      const sessionID = parseID("id", "session", routeSessionID ?? body.id ?? "")
      await runtime.session.get(sessionID)
      const parts = promptParts(await validMessages(body.messages))
      const stream = toUIMessageStream({
        runtime,
        sessionID,
        parts,
        prompt: {
          ...(body.agent ? { agent: body.agent } : {}),
          ...(body.model ? { model: body.model } : {}),
        },
        signal: request.signal,
      })
      return createUIMessageStreamResponse({ stream, keepAliveMs: options.keepAliveMs ?? 15_000 })
    } catch (error) {
      const { status, body } = toErrorBody(error)
      return Response.json(body, { status })
    }
  }
}

async function readJSON(request: Request): Promise<unknown> {
  const text = await request.text()
  try {
    return JSON.parse(text)
  } catch (error) {
    const message = `Malformed JSON: ${error instanceof Error ? error.message : String(error)}`
    throw new InvalidInputError({
      message: `Invalid chat request: ${message}`,
      issues: [{ path: "(root)", message }],
    })
  }
}

/** The messages as the AI SDK's own validator accepts them, so that useChat's shapes are checked. */
async function validMessages(messages: unknown[]): Promise<UIMessage[]> {
  const result = await safeValidateUIMessages({ messages })
  if (result.success) return result.data
  const message = truncate(result.error.message, 300)
  throw new InvalidInputError({
    message: `Invalid chat request: messages: ${message}`,
    issues: [{ path: "messages", message }],
  })
}

/** The last user message's text and files as prompt parts. */
function promptParts(messages: UIMessage[]): [PromptPart, ...PromptPart[]] {
  const last = messages.findLast((message) => message.role === "user")
  const parts = (last?.parts ?? []).flatMap((part): PromptPart[] => {
    if (part.type === "text") return part.text.trim() === "" ? [] : [{ type: "text", text: part.text }]
    if (part.type !== "file") return []
    return [
      {
        type: "file",
        mime: part.mediaType,
        url: part.url,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      },
    ]
  })
  const [first, ...rest] = parts
  if (first) return [first, ...rest]
  const message = "The last user message has no text or file to send"
  throw new InvalidInputError({
    message: `Invalid chat request: ${message}`,
    issues: [{ path: "messages", message }],
  })
}
