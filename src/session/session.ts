export { DOOM_LOOP_PERMISSION, DOOM_LOOP_THRESHOLD, doomLoopMessage, isDoomLoop } from "../loop/doom-loop.js"
export { MissingProviderError, NoUserMessageError } from "../loop/loop-errors.js"
export { PromptInput } from "../loop/prompt-input.js"
export { nextRetry, RetryOptions, retryDelay, retryMessage } from "../loop/retry.js"
export { BusyError } from "./errors.js"
export { Event } from "./events.js"
export { Info } from "./info.js"
export {
  CreateInput,
  DiffInput,
  ForkInput,
  ListInput,
  MessagesInput,
  PartDelta,
  RevertInput,
  UnrevertInput,
  UpdateInput,
} from "./input.js"
export type { SessionService as Service } from "./service.js"
export { Status } from "./status.js"
export { Todo } from "./todo.js"
export { getUsage, LONG_CONTEXT_THRESHOLD, type Usage } from "./usage.js"
