import { z } from "zod"
import { define, type Info } from "../tool/tool.js"
import { UnsupportedFileError } from "./errors.js"
import { applyChange, previousText } from "./file-change.js"
import { type PathOptions, resolveTarget } from "./paths.js"
import { toLF } from "./text-file.js"

const Parameters = z.object({
  filePath: z.string().min(1).describe("The file to write: relative to the working directory, or absolute"),
  content: z.string().describe("The file's whole new content"),
})

const DESCRIPTION = `Writes a file, replacing it if it exists and creating missing directories.
- Prefer the edit tool to change part of an existing file; read a file before overwriting it.`

/** The `write` tool: asks `edit` with the path relative to the directory and the diff. */
export function writeTool(options: PathOptions): Info<typeof Parameters> {
  return define("write", {
    description: DESCRIPTION,
    parameters: Parameters,
    async execute(args, context) {
      const target = await resolveTarget(args.filePath, options)
      const stat = await options.operations.stat(target.real)
      if (stat && stat.type !== "file")
        throw UnsupportedFileError.of(target.display, "not-a-file", "Cannot write over what is not a file")
      const before = await previousText(options, target, stat)
      const change = { before, after: toLF(args.content), data: args.content }
      const diff = await applyChange(context, target, change, options)
      const created = stat === undefined
      return {
        title: target.display,
        output: `${created ? "Created" : "Overwrote"} ${target.display} (+${diff.additions} -${diff.deletions})`,
        metadata: { created, filepath: target.real, ...diff },
      }
    },
  })
}
