import { z } from "zod"
import type { Context } from "../tool/tool.js"
import { define, type ToolInfo } from "../tool/tool.js"
import { EditFailedError, FileNotFoundError, UnsupportedFileError } from "./errors.js"
import { type Change, type CurrentFile, changeFile, describeChange, wholeFileChange } from "./file-change.js"
import { createPathLock, type PathLock } from "./path-lock.js"
import { type PathOptions, resolveTarget, type Target } from "./paths.js"
import { type Replacement, replace } from "./replace.js"
import { similarNames } from "./suggest.js"
import { formatText, type TextFile, toLF } from "./text-file.js"

const Parameters = z.object({
  filePath: z.string().min(1).describe("The file to change: relative to the working directory, or absolute"),
  oldString: z.string().describe('The text to replace; "" writes newString as the whole file'),
  newString: z.string().describe("The text to put in its place (must differ from oldString)"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence of oldString (default: only one)"),
})
type Args = z.output<typeof Parameters>
type FileOptions = PathOptions & { lock: PathLock }

const DESCRIPTION = `Replaces text in a file.
- oldString must match the file's text, indentation included, and be unique unless replaceAll is set; include surrounding lines to make it unique.
- Small slips (indentation, trailing spaces, escaped newlines) are forgiven when the intended text is unambiguous.
- An empty oldString writes newString as the whole file (creating it if needed).
- Line endings and a byte-order mark of the file are kept.`

/**
 * The `edit` tool: asks `edit` with the path relative to the directory and the diff. Without a
 * `lock` in the options it gets one of its own, shared with no other tool.
 */
export function editTool(options: PathOptions): ToolInfo<typeof Parameters> {
  const shared = { ...options, lock: options.lock ?? createPathLock() }
  return define("edit", {
    description: DESCRIPTION,
    fileChanges: "declared",
    parameters: Parameters,
    async execute(args, context) {
      const target = await resolveTarget(args.filePath, shared)
      if (args.oldString === args.newString)
        throw failure(target, "no-change", "oldString and newString are identical")
      return args.oldString === ""
        ? overwrite(args, context, target, shared)
        : edit(args, context, target, shared)
    },
  })
}

type Replaced = Change & { replacement: Replacement }

async function edit(args: Args, context: Context, target: Target, options: FileOptions) {
  const plan = async (current: CurrentFile): Promise<Replaced> => {
    const file = await editableText(current, target, options)
    const result = replace(file.text, toLF(args.oldString), toLF(args.newString), args.replaceAll ?? false)
    if ("failed" in result) throw notApplied(target, result.failed)
    if (result.content === file.text) throw failure(target, "no-change", "the edit leaves the file unchanged")
    return {
      before: file.text,
      after: result.content,
      data: formatText(file, result.content),
      replacement: result,
    }
  }
  const { change, diff } = await changeFile(context, target, options, plan)
  const { count, matcher } = change.replacement
  const notes = [
    ...(count > 1 ? [`${count} places`] : []),
    ...(matcher === "exact" ? [] : [`matched ${matcher}`]),
  ]
  return {
    title: target.display,
    output: describeChange("Edited", target, diff, notes),
    metadata: { filepath: target.real, matcher, replacements: count, ...diff },
  }
}

/** The file's text, or why it cannot be edited. */
async function editableText(current: CurrentFile, target: Target, options: FileOptions): Promise<TextFile> {
  if (current.stat && current.stat.type !== "file")
    throw UnsupportedFileError.of(target.display, "not-a-file", "Cannot edit what is not a file")
  if (!current.stat) {
    // Listing outside the directory may not be allowed (nothing is asked before this plan):
    // names next to a file out there stay unlisted.
    const similar = target.inside ? await similarNames(options.operations, target.real, target.display) : []
    throw FileNotFoundError.of(target.display, similar)
  }
  if (!current.text)
    throw UnsupportedFileError.of(target.display, "binary", "Cannot edit a file that is not UTF-8 text")
  return current.text
}

/** An empty oldString: newString becomes the whole file, as OpenCode does. */
async function overwrite(args: Args, context: Context, target: Target, options: FileOptions) {
  const plan = (current: CurrentFile) => {
    if (current.stat && current.stat.type !== "file")
      throw UnsupportedFileError.of(target.display, "not-a-file", "Cannot edit what is not a file")
    return wholeFileChange(current, args.newString)
  }
  const { diff, current } = await changeFile(context, target, options, plan)
  const created = current.stat === undefined
  return {
    title: target.display,
    output: describeChange(created ? "Created" : "Overwrote", target, diff),
    metadata: { filepath: target.real, created, replacements: 1, matcher: "whole-file", ...diff },
  }
}

function notApplied(target: Target, reason: "ambiguous" | "not-found") {
  return reason === "ambiguous"
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
}

function failure(target: Target, reason: "not-found" | "ambiguous" | "no-change", detail: string) {
  return new EditFailedError({
    message: `Cannot edit ${target.display}: ${detail}.`,
    path: target.display,
    reason,
  })
}
