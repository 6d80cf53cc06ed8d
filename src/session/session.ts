export { DOOM_LOOP_PERMISSION, DOOM_LOOP_THRESHOLD, doomLoopMessage, isDoomLoop } from "./doom-loop.js"
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
export { MissingProviderError, NoUserMessageError } from "./loop-errors.js"
export { PromptInput } from "./prompt-input.js"
export { RetryOptions, retryDelay, retryMessage } from "./retry.js"
export type { SessionService as Service } from "./service.js"
export { Status } from "./status.js"
export { Todo } from "./todo.js"
export { getUsage, LONG_CONTEXT_THRESHOLD, type Usage } from "./usage.js"
