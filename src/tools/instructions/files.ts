import type { InstructionSource } from "../../agent/instructions.js"
import { createNestedInstructions, type NestedInstructions } from "./nested.js"
import { checkOptions, type InstructionFilesOptions } from "./options.js"
import { createSessionInstructions } from "./sessions.js"
import { systemInstructions } from "./source.js"

/** What `instructionFiles` returns: the system prompt's source and the helper `read` attaches nested files with. */
export type InstructionFiles = {
  /**
   * For `RuntimeOptions.instructions`: the runtime calls it at the start of each turn, so the
   * files are read again every turn (an edit is seen at the next turn, never within one).
   */
  source: InstructionSource
  /** For `readTool`'s `instructions` option: the files of the subfolders a read opens files in. */
  nested: NestedInstructions
}

/**
 * The project's instruction files (AGENTS.md, CLAUDE.md), the user's and the host's, for the
 * system prompt, and the nested ones `read` attaches; all read through `options.operations`.
 * The two share what each session's turn has seen, so a file is given once. Throws
 * InvalidInputError for options it cannot use. See docs/tools.md.
 */
export function instructionFiles(given: InstructionFilesOptions): InstructionFiles {
  const options = checkOptions(given)
  const sessions = createSessionInstructions()
  return {
    async source(input) {
      const { blocks, included } = await systemInstructions(options, input.signal)
      sessions.of(input.sessionID).system = included
      return blocks
    },
    nested: createNestedInstructions(options, sessions),
  }
}
