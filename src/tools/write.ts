import { z } from "zod"
import { define, type ToolInfo } from "../tool/tool.js"
import { UnsupportedFileError } from "./errors.js"
import { type CurrentFile, changeFile, wholeFileChange } from "./file-change.js"
import { createPathLock } from "./path-lock.js"
import { type PathOptions, resolveTarget } from "./paths.js"

const Parameters = z.object({
  filePath: z.string().min(1).describe("The file to write: relative to the working directory, or absolute"),
  content: z.string().describe("The file's whole new content"),
})

const DESCRIPTION = `Writes a file, replacing it if it exists and creating missing directories.
- Prefer the edit tool to change part of an existing file; read a file before overwriting it.`

/**
 * The `write` tool: asks `edit` with the path relative to the directory and the diff. Without a
 * `lock` in the options it gets one of its own, shared with no other tool.
 */
export function writeTool(options: PathOptions): ToolInfo<typeof Parameters> {
  const shared = { ...options, lock: options.lock ?? createPathLock() }
  return define("write", {
    description: DESCRIPTION,
    fileChanges: "declared",
    parameters: Parameters,
    async execute(args, context) {
      const target = await resolveTarget(args.filePath, shared)
      const plan = (current: CurrentFile) => {
        if (current.stat && current.stat.type !== "file")
          throw UnsupportedFileError.of(target.display, "not-a-file", "Cannot write over what is not a file")
        return wholeFileChange(current, args.content)
      }
      const { diff, current } = await changeFile(context, target, shared, plan)
      const created = current.stat === undefined
      return {
        title: target.display,
        output: `${created ? "Created" : "Overwrote"} ${target.display} (+${diff.additions} -${diff.deletions})`,
        // diagnostics and exists as OpenCode's write reports them: its terminal UI shows the written content only with diagnostics.
        metadata: { created, exists: !created, diagnostics: {}, filepath: target.real, ...diff },
      }
    },
  })
}
