import { createTwoFilesPatch } from "diff"
import { z } from "zod"
import type { FileDiff } from "../../snapshot/schema.js"

/** A file diff as OpenCode's API sends it: a unified patch and a status instead of both texts. */
export const WireFileDiff = z.object({
  file: z.string(),
  patch: z.string(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  status: z.enum(["added", "deleted", "modified"]),
})
export type WireFileDiff = z.infer<typeof WireFileDiff>

export function toWireDiff(diff: FileDiff): WireFileDiff {
  return {
    file: diff.file,
    patch: createTwoFilesPatch(diff.file, diff.file, diff.before, diff.after),
    additions: diff.additions,
    deletions: diff.deletions,
    status: statusOf(diff),
  }
}

// The snapshot stores a missing file as empty text, so an empty side is the best evidence there is.
function statusOf({ before, after }: FileDiff): WireFileDiff["status"] {
  if (before === "" && after !== "") return "added"
  if (after === "" && before !== "") return "deleted"
  return "modified"
}
