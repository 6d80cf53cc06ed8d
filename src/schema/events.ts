import type { z } from "zod"
import type { Definition } from "../bus/event.js"
import { Event as MessageEvent } from "../message/events.js"
import { Event as PermissionEvent } from "./permission.js"
import { Event as QuestionEvent } from "./question.js"
import { Event as SessionEvent } from "./session.js"

/** Every event a runtime publishes, keyed by type. */
export const catalog = indexByType([
  ...Object.values(SessionEvent),
  ...Object.values(MessageEvent),
  ...Object.values(PermissionEvent),
  ...Object.values(QuestionEvent),
])

type Definitions =
  | (typeof SessionEvent)[keyof typeof SessionEvent]
  | (typeof MessageEvent)[keyof typeof MessageEvent]
  | (typeof PermissionEvent)[keyof typeof PermissionEvent]
  | (typeof QuestionEvent)[keyof typeof QuestionEvent]

/** The type of every event the runtime publishes: `session.created`, `message.part.updated`... */
export type EventType = Definitions["type"]
/** The properties of events of type `T`. */
export type EventProperties<T extends EventType> = z.infer<Extract<Definitions, { type: T }>["properties"]>
/** What a listener receives: a discriminated union on `type`. */
export type Event = { [T in EventType]: { type: T; properties: EventProperties<T> } }[EventType]
/** The event of type `T`, for typing a listener of one type. */
export type EventOf<T extends EventType> = Extract<Event, { type: T }>

function indexByType<const D extends Definition>(definitions: readonly D[]) {
  return Object.fromEntries(definitions.map((definition) => [definition.type, definition])) as {
    [T in D["type"]]: Extract<D, { type: T }>
  }
}
