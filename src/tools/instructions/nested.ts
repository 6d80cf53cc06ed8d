import * as path from "node:path"
import type { Context, Result } from "../../tool/tool.js"
import { foldersDown, withLocal } from "./discover.js"
import { DEFAULT_INSTRUCTION_NAMES, DEFAULT_MAX_FILE_BYTES, type InstructionFilesOptions } from "./options.js"
import type { SessionMemory } from "./sessions.js"
import { realDirectory } from "./source.js"
import { instructionBlock, readInstruction } from "./text.js"

/** A nested instruction file attached to a read: its path and its block (headed, maybe cut). */
export type NestedInstruction = { file: string; block: string }

/**
 * The instruction files of the subfolders `read` opens files in (see `instructionFiles`); give
 * it to `readTool` as `instructions`.
 */
export type NestedInstructions = {
  /**
   * The instruction files between `file`'s folder and the directory (the directory's own left
   * out), outer folders first, that this turn of the session has not yet seen: neither in its
   * system prompt nor attached to an earlier read. Claims them for the turn.
   */
  attach(
    file: string,
    context: Pick<Context, "sessionID" | "messageID" | "turnID" | "abort">,
  ): Promise<NestedInstruction[]>
}

/** Nested instructions for `options`, remembering claims in `sessions`. */
export function createNestedInstructions(
  options: InstructionFilesOptions,
  sessions: SessionMemory,
): NestedInstructions {
  const names = options.files ?? DEFAULT_INSTRUCTION_NAMES
  const maxFile = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  return {
    async attach(file, context) {
      if (options.nested === false) return []
      const { operations } = options
      const directory = await realDirectory(operations, options.directory)
      const folder = path.dirname(file)
      if (!isBelow(folder, directory)) return []
      const found = await Promise.all(
        foldersDown(directory, folder)
          .slice(1)
          .map((below) => firstNameIn(options, below, names)),
      )
      // Claimed before reading (no await in between), so that two reads running together attach a file once.
      const turn = context.turnID ?? context.messageID
      const claimed = found
        .flat()
        .filter((candidate) => candidate !== file && sessions.claim(context.sessionID, turn, candidate))
      const texts = await Promise.all(
        claimed.map((candidate) => readInstruction(operations, candidate, context.abort)),
      )
      return claimed.flatMap((candidate, index) => {
        const text = texts[index]
        if (text === undefined || text.trim() === "") return []
        return [{ file: candidate, block: instructionBlock(candidate, text, maxFile).block }]
      })
    },
  }
}

/**
 * `result` with the nested instruction files of `file` appended (in a `<system-reminder>`, as
 * OpenCode does) and listed in its metadata as `loaded`; as it is without `instructions`.
 */
export async function withNestedInstructions(
  result: Result,
  file: string,
  context: Pick<Context, "sessionID" | "messageID" | "turnID" | "abort">,
  instructions: NestedInstructions | undefined,
): Promise<Result> {
  if (!instructions) return result
  const loaded = await instructions.attach(file, context)
  const reminder = loaded.length
    ? `\n\n<system-reminder>\n${loaded.map((item) => item.block).join("\n\n")}\n</system-reminder>`
    : ""
  return {
    ...result,
    output: result.output + reminder,
    metadata: { ...result.metadata, loaded: loaded.map((item) => item.file) },
  }
}

/** The first name with a hit in `folder`: the file, then its `.local.md`, those that exist. */
async function firstNameIn(
  options: InstructionFilesOptions,
  folder: string,
  names: readonly string[],
): Promise<string[]> {
  for (const name of names) {
    const hits = await withLocal(options.operations, path.join(folder, name))
    if (hits.length > 0) return hits
  }
  return []
}

function isBelow(folder: string, directory: string): boolean {
  const relative = path.relative(directory, folder)
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
}
