export { toAITools } from "./ai-tools.js"
export type { DataPath } from "./data-path.js"
export { InvalidToolArgumentsError, UnstorableResultError } from "./errors.js"
export { type AITool, type FromAIOptions, fromAI, fromAISet } from "./from-ai.js"
export { createToolRegistry, type ToolRegistry as Registry } from "./registry.js"
export {
  type Attachment,
  type Context,
  define,
  type ExecuteResult,
  type FileChanges,
  type Info,
  type JSONSchemaObject,
  type ProviderTool,
  type Result,
} from "./tool.js"
export {
  MAX_ERROR_LENGTH,
  type ToolErrorContext as ErrorContext,
  type ToolErrorHandler as ErrorHandler,
} from "./tool-error.js"
export { MAX_BYTES, MAX_LINES, truncateOutput } from "./truncate.js"
