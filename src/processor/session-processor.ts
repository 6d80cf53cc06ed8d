export {
  type CreateInput,
  create,
  type ProcessorRuntime,
  type ProcessResult,
  type StreamInput,
} from "./processor.js"
