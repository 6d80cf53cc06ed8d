import { createOpencodeClient as createOlderClient, type Message as OlderMessage } from "@opencode-ai/sdk"
import { createOpencodeClient, type Event, type Message, type Part } from "@opencode-ai/sdk/v2"

/**
 * A program written against OpenCode's SDK types only, as a user of OpenCode's clients writes
 * one: it must compile under a user's strict settings (typed-client.test.ts compiles it alone)
 * and, run against our server, read what it expects.
 */

/** What the program saw of one prompt: what it read from the answers and from the events. */
export type Transcript = {
  mode: string
  answer: string
  tools: string[]
  eventTypes: string[]
  streamedText: string
  olderRoles: string[]
}

export async function converse(baseUrl: string, directory: string, prompt: string): Promise<Transcript> {
  const client = createOpencodeClient({ baseUrl, directory })
  const controller = new AbortController()
  const { stream } = await client.event.subscribe({}, { signal: controller.signal, sseMaxRetryAttempts: 1 })
  const connected = await stream.next()
  if (connected.done || connected.value.type !== "server.connected")
    throw new Error("no server.connected first")

  const { data: session } = await client.session.create({ title: "Typed client" }, { throwOnError: true })
  await client.session.promptAsync({ sessionID: session.id, parts: [{ type: "text", text: prompt }] })
  const seen = await follow(stream, session.id)
  controller.abort()

  const { data: messages } = await client.session.messages({ sessionID: session.id }, { throwOnError: true })
  const last = messages.at(-1)
  if (!last) throw new Error("no messages")

  const older = createOlderClient({ baseUrl, directory })
  const { data: olderMessages } = await older.session.messages({
    path: { id: session.id },
    throwOnError: true,
  })
  return {
    mode: modeOf(last.info),
    answer: last.parts.map(describePart).join(""),
    tools: messages.flatMap((message) => message.parts.flatMap(toolOf)),
    ...seen,
    olderRoles: olderMessages.map((message) => olderRole(message.info)),
  }
}

/** Reads events until the session is idle: their types, and the text the assistant's stream carried. */
async function follow(stream: AsyncGenerator<Event>, sessionID: string) {
  const eventTypes: string[] = []
  const assistantMessages = new Set<string>()
  const texts = new Map<string, string>()
  for await (const event of stream) {
    eventTypes.push(event.type)
    switch (event.type) {
      case "message.updated":
        if (event.properties.info.role === "assistant") assistantMessages.add(event.properties.info.id)
        break
      case "message.part.updated": {
        const { part, time } = event.properties
        if (assistantMessages.has(part.messageID) && part.type === "text" && time > 0)
          texts.set(part.id, part.text)
        break
      }
      case "message.part.delta": {
        const { messageID, partID, field, delta } = event.properties
        if (assistantMessages.has(messageID) && field === "text")
          texts.set(partID, (texts.get(partID) ?? "") + delta)
        break
      }
      case "session.error":
        throw new Error(`the run failed: ${event.properties.error?.name ?? "unknown error"}`)
      case "session.idle":
        if (event.properties.sessionID === sessionID)
          return { eventTypes, streamedText: [...texts.values()].join("") }
        break
      default:
        break
    }
  }
  throw new Error("the event stream ended before the session was idle")
}

function modeOf(info: Message): string {
  return info.role === "assistant" ? info.mode : `user of ${info.agent}`
}

function olderRole(info: OlderMessage): string {
  return info.role === "assistant" ? `assistant (${info.mode})` : "user"
}

function describePart(part: Part): string {
  switch (part.type) {
    case "text":
      return part.text
    case "reasoning":
      return ""
    case "tool":
      return part.state.status === "completed" ? `[${part.tool}: ${part.state.output}]` : `[${part.tool}]`
    default:
      return ""
  }
}

function toolOf(part: Part): string[] {
  return part.type === "tool" ? [`${part.tool} ${part.state.status}`] : []
}
