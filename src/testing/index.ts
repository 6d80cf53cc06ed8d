/**
 * Testing without a network: scripted models, a test runtime on memory storage, row builders, and
 * the Storage contract as a conformance suite for adapters. See docs/testing.md.
 *
 * @module agentloop-sdk/testing
 */
export { type Builders, createBuilders } from "./builders.js"
export { createCoordinatorHub, type HubCoordinator } from "./coordinator-hub.js"
export { expectAnswer, TurnEndedEarlyError, type TurnOutcome, turnText } from "./expect-answer.js"
export {
  type CallOptions,
  type Say,
  type ScriptStep,
  type StreamChunk,
  say,
  scriptFor,
  type Turn,
} from "./script.js"
export { ScriptedToolUnknownError, ScriptedTurnsUnusedError } from "./script-errors.js"
export type { ScriptedCall, ScriptTools, ToolCallArgs, ToolCallOptions } from "./script-tools.js"
export { type ScriptedModel, type ScriptedModelOptions, scriptedModel } from "./scripted-model.js"
export {
  type ConformanceOptions,
  type RowTarget,
  storageConformance,
  type TestFramework,
} from "./storage-conformance.js"
export {
  createTestRuntime,
  type TestRuntime,
  type TestRuntimeOptions,
  testModelInfo,
} from "./test-runtime.js"
