export { catalog, type Event, type EventOf, type EventProperties, type EventType } from "../schema/events.js"
export {
  type Bus,
  createBus,
  type Events,
  type Listener,
  type StreamOptions,
  type Unsubscribe,
} from "./bus.js"
export { type Definition, define } from "./event.js"
