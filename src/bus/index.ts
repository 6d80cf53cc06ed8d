export {
  type Bus,
  createBus,
  type Events,
  type Listener,
  type StreamOptions,
  type Unsubscribe,
} from "./bus.js"
export { catalog, type Event, type EventOf, type EventProperties, type EventType } from "./catalog.js"
export { type Definition, define } from "./event.js"
