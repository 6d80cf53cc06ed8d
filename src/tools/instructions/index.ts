export { type InstructionFiles, instructionFiles } from "./files.js"
export type { NestedInstruction, NestedInstructions } from "./nested.js"
export {
  DEFAULT_INSTRUCTION_NAMES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  defaultGlobalInstructions,
  type InstructionFilesOptions,
} from "./options.js"
