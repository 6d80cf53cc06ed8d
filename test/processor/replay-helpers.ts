import fs from "node:fs"
import type { LanguageModel } from "ai"
import { createRuntime, type Event, type MessageV2, SessionProcessor } from "../../src/index.js"
import { toModelMessages } from "../../src/message/to-model-messages.js"
import type { StreamInput } from "../../src/processor/stream-input.js"
import type { ModelInfo } from "../../src/provider/model-info.js"
import { createBuilders } from "../../src/testing/index.js"

const FIXTURES = new URL("../fixtures/provider-streams/", import.meta.url)

/** The events of a recorded stream, one raw JSON object per line. */
export function fixtureLines(name: string): string[] {
  return fs
    .readFileSync(new URL(name, FIXTURES), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
}

/** The recorded events parsed, for computing what a replay should store. */
export function fixtureEvents(name: string): Record<string, unknown>[] {
  return fixtureLines(name).map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** A request the provider package sent, with its JSON body. */
export type SentRequest = { url: string; body: unknown }

/** An error the provider answers with instead of a stream: an HTTP status and a JSON body. */
export type ErrorResponse = { status: number; body: unknown }

/**
 * A `fetch` that answers the n-th request with the n-th recorded response as server-sent events
 * (`data: <line>`, then `data: [DONE]` for the OpenAI-style APIs) and records every request.
 */
export function replayFetch(responses: (string[] | ErrorResponse)[], options: { done: boolean }) {
  const requests: SentRequest[] = []
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push({ url: String(url), body: JSON.parse(String(init?.body)) })
    const lines = responses[requests.length - 1]
    if (!lines) throw new Error(`replayFetch: request #${requests.length} has no recorded response`)
    if (!Array.isArray(lines))
      return new Response(JSON.stringify(lines.body), {
        status: lines.status,
        headers: { "content-type": "application/json" },
      })
    const events = lines.map((line) => `data: ${line}\n\n`).join("")
    return new Response(events + (options.done ? "data: [DONE]\n\n" : ""), {
      status: 200,
      headers: { "content-type": "text/event-stream" },
    })
  }
  return { fetch: fetch as typeof globalThis.fetch, requests }
}

/** USD per million tokens: $3 in, $15 out, $0.30 cache read, $3.75 cache write. */
export function pricedModel(providerID: string, id: string): ModelInfo {
  return {
    providerID,
    id,
    name: id,
    limit: { context: 200_000, output: 32_000 },
    cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
    capabilities: { reasoning: true, toolcall: true, attachment: false, temperature: true },
  }
}

/**
 * A runtime with an empty session. `user` stores a user message with one text part; `turn` then
 * runs one model call through a SessionProcessor into a new assistant message answering the latest
 * user message, sending the stored history as the loop would.
 */
export async function replaySession() {
  const runtime = createRuntime()
  const events: Event[] = []
  runtime.events.onAny((event) => {
    events.push(event)
  })
  const session = await runtime.session.create()
  const build = createBuilders()
  let userID = ""

  async function user(text: string) {
    userID = await runtime.session.newMessageID(session.id)
    const info = build.user(session.id, { id: userID, model: { providerID: "replay", modelID: "replay" } })
    const part = { ...build.text(session.id, userID, text), id: runtime.session.newPartID(userID) }
    await runtime.session.saveMessage({ info, parts: [part] })
  }

  async function turn(input: {
    language: LanguageModel
    info: ModelInfo
    stream?: Omit<StreamInput, "messages">
  }) {
    const history = await runtime.session.messages(session.id)
    const assistant = build.assistant(session.id, userID, {
      id: await runtime.session.newMessageID(session.id),
      providerID: input.info.providerID,
      modelID: input.info.id,
    })
    await runtime.session.updateMessage(assistant)
    events.length = 0
    const processor = SessionProcessor.create({
      runtime,
      assistantMessage: assistant,
      model: { language: input.language, info: input.info },
      abort: new AbortController().signal,
    })
    const result = await processor.process({
      ...input.stream,
      messages: await toModelMessages(history, input.info),
    })
    const stored = (await runtime.session.messages(session.id)).find(
      (message) => message.info.id === assistant.id,
    )!
    return { result, info: stored.info as MessageV2.Assistant, parts: stored.parts }
  }

  return { runtime, session, events, user, turn }
}

export function partsOf<T extends MessageV2.Part["type"]>(
  parts: MessageV2.Part[],
  type: T,
): Extract<MessageV2.Part, { type: T }>[] {
  return parts.filter((part): part is Extract<MessageV2.Part, { type: T }> => part.type === type)
}
