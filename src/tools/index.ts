/**
 * The coding tools (read, write, edit, glob, grep, list, bash), the coding preset, and the
 * `Operations` port they act through. See docs/tools.md.
 *
 * @module agentloop-sdk/tools
 */
export {
  type BashParameters,
  type BashToolOptions,
  bashTool,
  localExec,
  ShellParserError,
  WorkdirError,
} from "./bash/index.js"
export { type CodingPreset, codingPreset } from "./coding-preset.js"
export { type CodingToolsOptions, codingTools } from "./coding-tools.js"
export { editTool } from "./edit.js"
export {
  EditFailedError,
  FileNotFoundError,
  InvalidPatternError,
  MissingPackageError,
  ProtectedPathError,
  UnsafePathError,
  UnsupportedFileError,
} from "./errors.js"
export { globTool } from "./glob.js"
export { type GrepOptions, grepTool } from "./grep.js"
export { listTool } from "./list.js"
export { localOperations } from "./local-operations.js"
export type { DirectoryEntry, ExecOptions, ExecResult, FileStat, Operations } from "./operations.js"
export { createPathLock, type PathLock } from "./path-lock.js"
export type { PathOptions as FileToolOptions } from "./paths.js"
export { readTool } from "./read.js"
export {
  type SandboxLimits,
  type SandboxOperations,
  type SandboxOptions,
  SandboxPathError,
  SandboxUnavailableError,
  type SandboxUser,
  sandboxOperations,
} from "./sandbox/index.js"
export { writeTool } from "./write.js"
