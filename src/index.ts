/**
 * The runtime (`createRuntime`) and the domains it is made of: sessions, messages, agents, tools,
 * permissions, questions, todos, compaction, providers, the Storage, Snapshot and Coordinator
 * ports with in-memory storage, the events and the named errors. See docs/runtime.md.
 *
 * @module agentloop-sdk
 */
export { Agent } from "./agent/index.js"
export type { InstructionSource, InstructionSourceInput } from "./agent/instructions.js"
export type {
  Event,
  EventOf,
  EventProperties,
  Events,
  EventType,
  Listener,
  StreamOptions,
  Unsubscribe,
} from "./bus/index.js"
export { Command } from "./command/index.js"
export { Compaction } from "./compaction/index.js"
export type { Coordinator, CoordinatorMessage, Lease } from "./coordination/port.js"
export { SessionMovedError } from "./coordination/session-moved-error.js"
export {
  InvalidInputError,
  isNamedError,
  NamedError,
  NotFoundError,
  RuntimeClosedError,
  type SerializedError,
} from "./error/index.js"
export { Identifier } from "./id/index.js"
export { MessageV2 } from "./message/index.js"
export { Permission } from "./permission/index.js"
export { SessionProcessor } from "./processor/index.js"
export { Provider } from "./provider/index.js"
export type { Logger } from "./provider/logger.js"
export { createProvider } from "./provider/provider.js"
export { Question } from "./question/index.js"
export {
  type AgentOptions,
  type CloseOptions,
  createRuntime,
  type Runtime,
  type RuntimeOptions,
} from "./runtime/runtime.js"
export type { LoopResult, RefusedBy, TurnFinish, TurnResult, TurnUsage } from "./schema/turn-result.js"
export { Session } from "./session/index.js"
export { ShellUnavailableError } from "./shell/errors.js"
export { SnapshotUnavailableError } from "./snapshot/errors.js"
export type { Snapshot } from "./snapshot/port.js"
export {
  CorruptRowError,
  MemoryStorage,
  type MessageQuery,
  type SessionQuery,
  type Storage,
  StorageClosedError,
  StorageError,
  type StorageErrorData,
  type StorageErrorReason,
  type StorageWrite,
} from "./storage/index.js"
export { NotASubagentError } from "./task/errors.js"
export {
  OpenTelemetryNotInstalledError,
  type TelemetrySettings,
  type Tracer,
} from "./telemetry/index.js"
export { Todo } from "./todo/index.js"
export { Tool } from "./tool/index.js"
export { VERSION } from "./version.js"
