export { builtins } from "./builtins.js"
export { codingAgents } from "./coding.js"
export { InvalidDefaultAgentError, UnknownAgentError } from "./errors.js"
export { Info, Mode } from "./info.js"
/**
 * agentloop's own prompt texts, as strings: the agents' system prompts (`DEFAULT`, `BUILD`,
 * `PLAN`, `EXPLORE`, `GENERAL`), the hidden agents' (`COMPACTION`, `TITLE`, `SUMMARY`) and the
 * notes the loop adds (`COMPACTION_CONTINUE`, `MAX_STEPS`). Use them to build an agent's prompt
 * on top of a built-in one; see docs/agents.md.
 */
export * as Prompt from "./prompts/index.js"
export { defaultAgent, getAgent, Override, resolveAgents } from "./resolve.js"
export {
  type Environment,
  environmentBlock,
  formatDate,
  type SystemPromptInput,
  systemPrompt,
} from "./system.js"
