export { MissingProviderError, NoUserMessageError } from "../loop/context.js"
export { nextRetry, RetryOptions, retryDelay, retryMessage } from "../loop/retry.js"
export {
  DOOM_LOOP_PERMISSION,
  DOOM_LOOP_THRESHOLD,
  doomLoopMessage,
  isDoomLoop,
} from "../processor/doom-loop.js"
export { PromptInput } from "../schema/prompt.js"
export { Event, Info, Status, Todo } from "../schema/session.js"
export { BusyError } from "./errors.js"
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
export { getUsage, LONG_CONTEXT_THRESHOLD, type Usage } from "./usage.js"
