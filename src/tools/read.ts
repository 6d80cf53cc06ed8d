import * as path from "node:path"
import { z } from "zod"
import { InvalidInputError } from "../error/invalid-input.js"
import { define, type Result, type ToolInfo } from "../tool/tool.js"
import { askAccess } from "./access.js"
import { FileNotFoundError, UnsupportedFileError } from "./errors.js"
import { isBinary, mediaTypeOf } from "./file-kind.js"
import { type NestedInstructions, withNestedInstructions } from "./instructions/nested.js"
import type { Operations } from "./operations.js"
import { type PathOptions, resolveTarget, type Target } from "./paths.js"
import { DEFAULT_READ_LIMIT, pageOf } from "./read-text.js"
import { similarNames } from "./suggest.js"

// Past this a file is better searched than read whole; the port reads files in one piece.
const MAX_FILE_BYTES = 50 * 1024 * 1024
// Attachments are stored on the part and sent to the model as they are.
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024

const Parameters = z.object({
  filePath: z
    .string()
    .min(1)
    .describe("The file or directory to read: relative to the working directory, or absolute"),
  offset: z.coerce.number().int().min(1).optional().describe("The line to start at (1-based); default 1"),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to read; default ${DEFAULT_READ_LIMIT}`),
})

const DESCRIPTION = `Reads a file from the file system.
- Text comes back with line numbers ("00012| text"); at most ${DEFAULT_READ_LIMIT} lines by default, use offset and limit for long files. Lines over 2000 characters are cut.
- Images (PNG, JPEG, GIF, WebP) and PDFs come back as attachments.
- A directory comes back as a listing of its entries. Binary files are refused.`

/** What `readTool` takes: where it reads, and the nested instruction files to attach. */
export type ReadToolOptions = PathOptions & {
  /**
   * When given, a file read in a subfolder of the directory gets the instruction files
   * (AGENTS.md, ...) of the folders between, once per turn (`instructionFiles(...).nested`).
   */
  instructions?: NestedInstructions
}

/** The `read` tool: asks `read` with the path relative to the directory. */
export function readTool(options: ReadToolOptions): ToolInfo<typeof Parameters> {
  return define("read", {
    description: DESCRIPTION,
    fileChanges: "none",
    parameters: Parameters,
    async execute(args, context) {
      const { operations } = options
      const target = await resolveTarget(args.filePath, options)
      const stat = await operations.stat(target.real)
      const kind = stat?.type === "directory" ? "directory" : "file"
      await askAccess(context, target, { permission: "read", kind }, options)
      if (!stat)
        throw FileNotFoundError.of(
          target.display,
          await similarNames(operations, target.real, target.display),
        )
      const page = { offset: args.offset ?? 1, limit: args.limit ?? DEFAULT_READ_LIMIT }
      if (stat.type === "directory") return listing(operations, target, page)
      if (stat.type !== "file")
        throw UnsupportedFileError.of(target.display, "not-a-file", "Not a regular file")
      if (stat.size > MAX_FILE_BYTES)
        throw UnsupportedFileError.of(
          target.display,
          "too-large",
          "File too large to read; search it with grep",
        )
      const bytes = await operations.readFile(target.real, { signal: context.abort })
      const mime = mediaTypeOf(target.real)
      if (!mime && isBinary(target.real, bytes))
        throw UnsupportedFileError.of(target.display, "binary", "Cannot read binary file")
      const result = mime ? attachment(target, bytes, mime) : text(target, bytes, page)
      return withNestedInstructions(result, target.real, context, options.instructions)
    },
  })
}

function text(target: Target, bytes: Uint8Array, page: { offset: number; limit: number }): Result {
  const content = Buffer.from(bytes)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
  const shown = pageOf(content, page.offset, page.limit)
  if (!shown) {
    const message = `Offset ${page.offset} is past the end of ${target.display}`
    throw new InvalidInputError({ message, issues: [{ path: "offset", message }] })
  }
  return {
    title: target.display,
    output: shown.output,
    metadata: { preview: shown.preview, lines: shown.total, truncated: shown.more },
  }
}

function attachment(target: Target, bytes: Uint8Array, mime: string): Result {
  if (bytes.length > MAX_ATTACHMENT_BYTES)
    throw UnsupportedFileError.of(target.display, "too-large", "File too large to attach")
  const kind = mime === "application/pdf" ? "PDF" : "Image"
  return {
    title: target.display,
    output: `${kind} read: ${target.display} (${bytes.length} bytes, attached)`,
    metadata: { mime, bytes: bytes.length },
    attachments: [
      {
        mime,
        url: `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`,
        filename: path.basename(target.real),
      },
    ],
  }
}

/** A directory's entries, sorted, directories marked with a trailing "/"; offset and limit page through them. */
async function listing(
  operations: Operations,
  target: Target,
  page: { offset: number; limit: number },
): Promise<Result> {
  const entries = await operations.list(target.real)
  const names = await Promise.all(
    entries.map(async (entry) => {
      // A link the operations cannot follow (dangling, or out of a sandbox) is listed by its name.
      const linked =
        entry.type === "symlink"
          ? await operations.stat(path.join(target.real, entry.name)).catch(() => undefined)
          : undefined
      const isDirectory = entry.type === "directory" || linked?.type === "directory"
      return isDirectory ? `${entry.name}/` : entry.name
    }),
  )
  names.sort((a, b) => a.localeCompare(b))
  const shown = names.slice(page.offset - 1, page.offset - 1 + page.limit)
  const last = page.offset - 1 + shown.length
  const note =
    last < names.length
      ? `(Showing entries ${page.offset}-${last} of ${names.length}. Use offset=${last + 1} to read on.)`
      : `(${names.length} entries)`
  return {
    title: target.display,
    output: [`<directory path="${target.display}">`, ...shown, "", note, "</directory>"].join("\n"),
    metadata: { entries: names.length, truncated: last < names.length },
  }
}
