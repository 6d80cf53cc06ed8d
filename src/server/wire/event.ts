import { ulid } from "ulid"
import type { Event } from "../../schema/events.js"
import { toWireDiff } from "./diff.js"
import { toWireError } from "./error.js"
import { toWireInfo, toWirePart } from "./message.js"
import { toWireSession } from "./session.js"
import { toWireTodo } from "./todo.js"

/** An event as OpenCode's event streams send it: with its own `id`, its properties in wire shapes. */
export type WireEvent = { id: string; type: string; properties: object }

/** OpenCode's clients order and deduplicate by `id`; `evt_` and a ULID, as OpenCode's server makes them. */
export function toWireEvent(event: Event | { type: "server.connected"; properties: object }): WireEvent {
  return { id: `evt_${ulid()}`, type: event.type, properties: wireProperties(event) }
}

function wireProperties(event: Event | { type: "server.connected"; properties: object }): object {
  switch (event.type) {
    case "session.created":
    case "session.updated":
    case "session.deleted":
      return { ...event.properties, info: toWireSession(event.properties.info) }
    case "message.updated":
      return { ...event.properties, info: toWireInfo(event.properties.info) }
    case "message.part.updated":
      // OpenCode stamps when the part changed, which its clients use to order updates.
      return { ...event.properties, part: toWirePart(event.properties.part), time: Date.now() }
    case "session.error":
      return { ...event.properties, error: toWireError(event.properties.error) }
    case "todo.updated":
      return { ...event.properties, todos: event.properties.todos.map(toWireTodo) }
    case "session.diff":
      return { ...event.properties, diff: event.properties.diff.map(toWireDiff) }
    default:
      return event.properties
  }
}
