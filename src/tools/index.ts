/**
 * The coding tools (read, write, edit, apply_patch, glob, grep, list, bash, webfetch), the
 * project's context (instruction files, Agent Skills, markdown agents and commands), the coding
 * preset, and the `Operations` port they act through. See docs/tools.md and docs/skills.md.
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
export { type CodingPreset, type CodingPresetOptions, codingPreset } from "./coding-preset.js"
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
export {
  DEFAULT_INSTRUCTION_NAMES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  defaultGlobalInstructions,
  type InstructionFiles,
  type InstructionFilesOptions,
  instructionFiles,
  type NestedInstruction,
  type NestedInstructions,
} from "./instructions/index.js"
export { listTool } from "./list.js"
export {
  type LoadCodingPresetOptions,
  type LoadedCodingPreset,
  loadCodingPreset,
} from "./load-coding-preset.js"
export { localOperations } from "./local-operations.js"
export { FrontMatterError, parseFrontMatter } from "./markdown/front-matter.js"
export type { DirectoryEntry, ExecOptions, ExecResult, FileStat, Operations } from "./operations.js"
export {
  applyChunks,
  applyHunks,
  applyPatchTool,
  type PatchChunk,
  type PatchedFile,
  PatchFailedError,
  type PatchFileReport,
  type PatchFiles,
  type PatchHunk,
  parsePatch,
  usesApplyPatch,
} from "./patch/index.js"
export { createPathLock, type PathLock } from "./path-lock.js"
export type { PathOptions as FileToolOptions } from "./paths.js"
export {
  loadProjectConfig,
  overlayAgents,
  type ProjectConfig,
  ProjectConfigError,
  type ProjectConfigOptions,
} from "./project-config/index.js"
export { type ReadToolOptions, readTool } from "./read.js"
export {
  type SandboxLimits,
  type SandboxOperations,
  type SandboxOptions,
  SandboxPathError,
  SandboxUnavailableError,
  type SandboxUser,
  sandboxOperations,
} from "./sandbox/index.js"
export {
  type AgentSkills,
  agentSkills,
  createSkillCatalog,
  InvalidSkillsError,
  type SkillCatalog,
  type SkillInfo,
  type SkillIssue,
  type SkillOptions,
  type SkillTool,
  type SkillWarning,
  skillCommands,
  skillTool,
} from "./skills/index.js"
export {
  BlockedAddressError,
  isPrivateAddress,
  WEBFETCH_PACKAGES,
  WebFetchError,
  type WebFetchOptions,
  webfetchTool,
} from "./webfetch/index.js"
export { writeTool } from "./write.js"
