import type { Context } from "../../tool/tool.js"
import { type CurrentFile, lockKey, readCurrent } from "../file-change.js"
import { type PathOptions, resolveTarget, type Target } from "../paths.js"
import type { PatchHunk } from "./parse.js"

/** One file a patch touches, resolved, with the key of its lock (one per file, however spelled). */
export type PatchTarget = { target: Target; key: string }

/**
 * The patch's paths resolved against the directory: its sections with every path as the tools
 * show it (relative to the directory when inside), and each file once, in the patch's order.
 */
export async function resolveTargets(hunks: readonly PatchHunk[], options: PathOptions) {
  const byDisplay = new Map<string, PatchTarget>()
  const resolve = async (path: string) => {
    const target = await resolveTarget(path, options)
    if (!byDisplay.has(target.display))
      byDisplay.set(target.display, { target, key: lockKey(target, options) })
    return target.display
  }
  const shown: PatchHunk[] = []
  for (const hunk of hunks) {
    const path = await resolve(hunk.path)
    if (hunk.type !== "update" || hunk.movePath === undefined) shown.push({ ...hunk, path })
    else shown.push({ ...hunk, path, movePath: await resolve(hunk.movePath) })
  }
  const files = new Map<string, PatchTarget>()
  for (const entry of byDisplay.values()) if (!files.has(entry.key)) files.set(entry.key, entry)
  return { hunks: shown, byDisplay, files: [...files.values()] }
}

/** Each file as it is now, by lock key. */
export async function readTargets(
  context: Pick<Context, "abort">,
  files: readonly PatchTarget[],
  options: PathOptions,
): Promise<Map<string, CurrentFile>> {
  const read = await Promise.all(files.map((file) => readCurrent(context, file.target, options)))
  return new Map(files.map((file, index) => [file.key, read[index]!]))
}
