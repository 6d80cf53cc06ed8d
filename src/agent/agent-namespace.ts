export { builtins } from "./builtins.js"
export { codingAgents } from "./coding.js"
export { InvalidDefaultAgentError, UnknownAgentError } from "./errors.js"
export { Info, Mode } from "./info.js"
export * as Prompt from "./prompts/index.js"
export { defaultAgent, getAgent, Override, resolveAgents } from "./resolve.js"
export {
  type Environment,
  environmentBlock,
  formatDate,
  type SystemPromptInput,
  systemPrompt,
} from "./system.js"
