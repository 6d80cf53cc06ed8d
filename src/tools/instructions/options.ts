import * as path from "node:path"
import { z } from "zod"
import { parseInput } from "../../error/invalid-input.js"
import type { Operations } from "../operations.js"

/** What `instructionFiles` takes: where to look, which names, and how much text to let in. See docs/tools.md. */
export type InstructionFilesOptions = {
  /** The file operations to read through (the sandbox's confine the reads too). */
  operations: Operations
  /** The runtime's working directory: where the project walk starts and nested files stop. */
  directory: string
  /**
   * Where the walk up from `directory` stops (inclusive). Default: the nearest ancestor of the
   * directory (itself included) holding `.git`, a folder or a file (a worktree, a submodule);
   * outside a work tree the directory alone.
   */
  root?: string
  /**
   * The names to look for, in order: the first name found anywhere between the root and the
   * directory (as itself or its `.local.md`) wins, and all its files are taken. Default
   * `["AGENTS.md", "CLAUDE.md"]`.
   */
  files?: readonly string[]
  /**
   * The user's own files, tried in order: the first one that exists (as itself or its
   * `.local.md`) is taken with its `.local.md`. Default none; `defaultGlobalInstructions(home)`
   * gives OpenCode's and Claude Code's places.
   */
  global?: readonly string[] | false
  /** More files: paths or globs, relative to `directory` or absolute. Taken after the others, in order. */
  extra?: readonly string[]
  /** A file longer than this (in UTF-8 bytes) is cut with a note. Default 32 KiB. */
  maxFileBytes?: number
  /** Past this many bytes of file text in all, files are cut and then only listed. Default 128 KiB. */
  maxTotalBytes?: number
  /** Whether `read` attaches the instruction files of the subfolders it reads in. Default true. */
  nested?: boolean
}

/** The names looked for by default, in order. */
export const DEFAULT_INSTRUCTION_NAMES: readonly string[] = ["AGENTS.md", "CLAUDE.md"]
/** The default per-file cap: 32 KiB. */
export const DEFAULT_MAX_FILE_BYTES = 32 * 1024
/** The default cap on all instruction files together: 128 KiB. */
export const DEFAULT_MAX_TOTAL_BYTES = 128 * 1024

/**
 * The user's instruction files where OpenCode and Claude Code keep them, in the order OpenCode
 * tries them: `<home>/.config/opencode/AGENTS.md`, then `<home>/.claude/CLAUDE.md`.
 */
export function defaultGlobalInstructions(home: string): string[] {
  return [path.join(home, ".config", "opencode", "AGENTS.md"), path.join(home, ".claude", "CLAUDE.md")]
}

/** `AGENTS.md` → `AGENTS.local.md`: the variant a user keeps out of version control; none for a name not ending in `.md`. */
export function localVariant(file: string): string | undefined {
  return file.endsWith(".md") ? `${file.slice(0, -".md".length)}.local.md` : undefined
}

const Paths = z.array(z.string().min(1))
const Bytes = z.number().int().positive()
const Options = z.object({
  operations: z.custom<Operations>((value) => typeof value === "object" && value !== null, {
    message: "expected the Operations port",
  }),
  directory: z.string().min(1),
  root: z.string().min(1).optional(),
  files: Paths.min(1).optional(),
  global: z.union([Paths, z.literal(false)]).optional(),
  extra: Paths.optional(),
  maxFileBytes: Bytes.optional(),
  maxTotalBytes: Bytes.optional(),
  nested: z.boolean().optional(),
})

/** The options, checked: throws InvalidInputError naming each field that is wrong. */
export function checkOptions(options: InstructionFilesOptions): InstructionFilesOptions {
  parseInput("instructionFiles options", Options, options)
  return options
}
