export {
  type BashParameters,
  type BashToolOptions,
  bashTool,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
} from "./bash-tool.js"
export { ShellParserError, WorkdirError } from "./errors.js"
export { localExec } from "./local-exec.js"
