import * as path from "node:path"
import type { Operations } from "../operations.js"
import { extraFiles, foldersDown, globalFiles, projectFiles, workTreeRoot } from "./discover.js"
import {
  DEFAULT_INSTRUCTION_NAMES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  type InstructionFilesOptions,
} from "./options.js"
import { formatSize, instructionBlock, readInstruction } from "./text.js"

/** The system prompt's instruction blocks, and the files whose text they hold. */
export type SystemInstructions = { blocks: string[]; included: Set<string> }

/** The path with its symlinks resolved as far as the operations can; else as given. */
export async function realDirectory(operations: Operations, directory: string): Promise<string> {
  const absolute = path.resolve(directory)
  return operations.realpath(absolute).catch(() => absolute)
}

/** Every instruction file in prompt order, each once: the project's (root down), global, extra. */
export async function instructionPaths(
  options: InstructionFilesOptions,
  signal?: AbortSignal,
): Promise<string[]> {
  const { operations } = options
  const directory = await realDirectory(operations, options.directory)
  const root =
    options.root === undefined
      ? await workTreeRoot(operations, directory)
      : await realDirectory(operations, options.root)
  const names = options.files ?? DEFAULT_INSTRUCTION_NAMES
  const [project, global, extra] = await Promise.all([
    projectFiles(operations, foldersDown(root, directory), names),
    options.global ? globalFiles(operations, options.global) : [],
    extraFiles(operations, directory, options.extra ?? [], signal),
  ])
  return [...new Set([...project, ...global, ...extra])]
}

/**
 * The files read now, as blocks in order: each cut at the per-file cap, then at what is left of
 * the total; once the total is used up, the files left are named in a last block.
 */
export async function systemInstructions(
  options: InstructionFilesOptions,
  signal?: AbortSignal,
): Promise<SystemInstructions> {
  const files = await instructionPaths(options, signal)
  const texts = await Promise.all(files.map((file) => readInstruction(options.operations, file, signal)))
  const maxFile = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const maxTotal = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES
  const blocks: string[] = []
  const included = new Set<string>()
  const leftOut: string[] = []
  let budget = maxTotal
  for (const [index, file] of files.entries()) {
    const text = texts[index]
    if (text === undefined || text.trim() === "") continue
    if (budget <= 0) {
      leftOut.push(file)
      continue
    }
    const limit = Math.min(maxFile, budget)
    const { block, bytes } = instructionBlock(file, text, limit)
    blocks.push(block)
    included.add(file)
    // A file cut at the budget's end uses it up, even when the cut fell a few bytes short on a character.
    budget = limit === budget && Buffer.byteLength(text) > limit ? 0 : budget - bytes
  }
  if (leftOut.length > 0)
    blocks.push(
      [
        `Instruction files left out (their ${formatSize(maxTotal)} in total are used up); read them when they matter:`,
        ...leftOut.map((file) => `- ${file}`),
      ].join("\n"),
    )
  return { blocks, included }
}
