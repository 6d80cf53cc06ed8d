import { z } from "zod"
import type { Context } from "../tool/tool.js"
import { define, type Info } from "../tool/tool.js"
import { EditFailedError, FileNotFoundError, UnsupportedFileError } from "./errors.js"
import { applyChange, describeChange, previousText } from "./file-change.js"
import { isBinary } from "./file-kind.js"
import { type PathOptions, resolveTarget, type Target } from "./paths.js"
import { replace } from "./replace.js"
import { similarNames } from "./suggest.js"
import { decodeUtf8, formatText, parseText, toLF } from "./text-file.js"

const Parameters = z.object({
  filePath: z.string().min(1).describe("The file to change: relative to the working directory, or absolute"),
  oldString: z.string().describe('The text to replace; "" writes newString as the whole file'),
  newString: z.string().describe("The text to put in its place (must differ from oldString)"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence of oldString (default: only one)"),
})
type Args = z.output<typeof Parameters>

const DESCRIPTION = `Replaces text in a file.
- oldString must match the file's text, indentation included, and be unique unless replaceAll is set; include surrounding lines to make it unique.
- Small slips (indentation, trailing spaces, escaped newlines) are forgiven when the intended text is unambiguous.
- An empty oldString writes newString as the whole file (creating it if needed).
- Line endings and a byte-order mark of the file are kept.`

/** The `edit` tool: asks `edit` with the path relative to the directory and the diff. */
export function editTool(options: PathOptions): Info<typeof Parameters> {
  return define("edit", {
    description: DESCRIPTION,
    parameters: Parameters,
    async execute(args, context) {
      const target = await resolveTarget(args.filePath, options)
      if (args.oldString === args.newString)
        throw failure(target, "no-change", "oldString and newString are identical")
      const stat = await options.operations.stat(target.real)
      if (stat && stat.type !== "file")
        throw UnsupportedFileError.of(target.display, "not-a-file", "Cannot edit what is not a file")
      if (args.oldString === "") return overwrite(args, context, target, options)
      if (!stat) {
        // Nothing has been asked yet: names next to a file outside the directory stay unlisted.
        const similar = target.inside
          ? await similarNames(options.operations, target.real, target.display)
          : []
        throw FileNotFoundError.of(target.display, similar)
      }
      return edit(args, context, target, options)
    },
  })
}

async function edit(args: Args, context: Context, target: Target, options: PathOptions) {
  const bytes = await options.operations.readFile(target.real, { signal: context.abort })
  const decoded = isBinary(target.real, bytes) ? undefined : decodeUtf8(bytes)
  if (decoded === undefined)
    throw UnsupportedFileError.of(target.display, "binary", "Cannot edit a file that is not UTF-8 text")
  const file = parseText(decoded)
  const result = replace(file.text, toLF(args.oldString), toLF(args.newString), args.replaceAll ?? false)
  if ("failed" in result)
    throw result.failed === "ambiguous"
      ? failure(
          target,
          "ambiguous",
          "oldString matches several places; add surrounding lines to make it unique, or set replaceAll",
        )
      : failure(
          target,
          "not-found",
          "oldString was not found; it must match the file's text, including whitespace and indentation (read the file again to check)",
        )
  if (result.content === file.text) throw failure(target, "no-change", "the edit leaves the file unchanged")
  const change = { before: file.text, after: result.content, data: formatText(file, result.content) }
  const diff = await applyChange(context, target, change, options)
  const notes = [
    ...(result.count > 1 ? [`${result.count} places`] : []),
    ...(result.matcher === "exact" ? [] : [`matched ${result.matcher}`]),
  ]
  return {
    title: target.display,
    output: describeChange("Edited", target, diff, notes),
    metadata: { filepath: target.real, matcher: result.matcher, replacements: result.count, ...diff },
  }
}

/** An empty oldString: newString becomes the whole file, as OpenCode does. */
async function overwrite(args: Args, context: Context, target: Target, options: PathOptions) {
  const stat = await options.operations.stat(target.real)
  const before = await previousText(options, target, stat)
  const change = { before, after: toLF(args.newString), data: args.newString }
  const diff = await applyChange(context, target, change, options)
  const verb = stat ? "Overwrote" : "Created"
  return {
    title: target.display,
    output: describeChange(verb, target, diff),
    metadata: { filepath: target.real, created: !stat, replacements: 1, matcher: "whole-file", ...diff },
  }
}

function failure(target: Target, reason: "not-found" | "ambiguous" | "no-change", detail: string) {
  return new EditFailedError({
    message: `Cannot edit ${target.display}: ${detail}.`,
    path: target.display,
    reason,
  })
}
