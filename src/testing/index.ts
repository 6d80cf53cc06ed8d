export { type Builders, createBuilders } from "./builders.js"
export { createCoordinatorHub, type HubCoordinator } from "./coordinator-hub.js"
export { type CallOptions, type ScriptStep, type StreamChunk, say } from "./script.js"
export { type ScriptedModel, scriptedModel, type Turn } from "./scripted-model.js"
export {
  type ConformanceOptions,
  type RowTarget,
  storageConformance,
  type TestFramework,
} from "./storage-conformance.js"
export { createTestRuntime, type TestRuntimeOptions, testModelInfo } from "./test-runtime.js"
