export { toAITools } from "./ai-tools.js"
export { InvalidToolArgumentsError, UnstorableResultError } from "./errors.js"
export { type AITool, type FromAIOptions, fromAI, fromAISet } from "./from-ai.js"
export { createToolRegistry, type ToolRegistry as Registry } from "./registry.js"
export {
  type Attachment,
  type Context,
  define,
  type Info,
  type JSONSchemaObject,
  type Result,
} from "./tool.js"
export { MAX_BYTES, MAX_LINES, truncateOutput } from "./truncate.js"
