export { Event } from "./events.js"
export { Info } from "./info.js"
export {
  CreateInput,
  ForkInput,
  ListInput,
  MessagesInput,
  PartDelta,
  UpdateInput,
} from "./input.js"
export type { SessionService as Service } from "./service.js"
export { Status } from "./status.js"
export { Todo } from "./todo.js"
export { getUsage, LONG_CONTEXT_THRESHOLD, type Usage } from "./usage.js"
