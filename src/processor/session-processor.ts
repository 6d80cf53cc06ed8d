export { createProviderStream, type ProviderStreamOptions } from "../provider-call/provider-stream.js"
export { type ModelStream, streamTextModel } from "./model-stream.js"
export { type CreateInput, create, type ProcessorRuntime } from "./processor.js"
export type { ProcessResult, StreamInput } from "./stream-input.js"
