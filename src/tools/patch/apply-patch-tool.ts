import { z } from "zod"
import type { Context } from "../../tool/tool.js"
import { define, type ToolInfo } from "../../tool/tool.js"
import { sameFile } from "../file-change.js"
import { createPathLock, type PathLock } from "../path-lock.js"
import { defaultCaseInsensitive, externalPatterns, type PathOptions } from "../paths.js"
import { refuseProtected } from "../protected-paths.js"
import { commitWrites } from "./commit.js"
import { DESCRIPTION } from "./description.js"
import { usesApplyPatch } from "./offered.js"
import { parsePatch } from "./parse.js"
import { type PatchPlan, planPatch } from "./plan.js"
import { type PatchTarget, readTargets, resolveTargets } from "./targets.js"

const Parameters = z.object({
  patchText: z
    .string()
    .describe("The whole patch, from *** Begin Patch to *** End Patch, describing every change to make"),
})

type FileOptions = PathOptions & { lock: PathLock }

/**
 * The `apply_patch` tool: changes several files in one call, in OpenCode's patch format, all or
 * none. Takes the same options as `editTool`; give both one `lock` so that an edit and a patch
 * of one file queue. Offered (`Tool.Info.offered`) to the models `usesApplyPatch` names.
 */
export function applyPatchTool(options: PathOptions): ToolInfo<typeof Parameters> {
  const shared: FileOptions = { ...options, lock: options.lock ?? createPathLock() }
  return define("apply_patch", {
    description: DESCRIPTION,
    fileChanges: "declared",
    parameters: Parameters,
    offered: (model) => usesApplyPatch(model.modelID),
    execute: (args, context) => applyPatch(args.patchText, context, shared),
  })
}

/**
 * Parse, resolve, refuse protected paths, lock every file (in one order, so two patches cannot
 * deadlock), read and compute everything, ask once, read again (recomputing if a file changed
 * meanwhile), declare, write. Nothing is written before everything fits.
 */
async function applyPatch(patchText: string, context: Context, options: FileOptions) {
  const resolved = await resolveTargets(parsePatch(patchText), options)
  // Before any file is read for the diff: the runtime's own data is neither shown nor changed.
  for (const { target } of resolved.files) await refuseProtected(context, target, options)
  const keys = resolved.files.map((file) => file.key).sort()
  return withLocks(options.lock, keys, async () => {
    context.abort.throwIfAborted()
    const plan = (current: Awaited<ReturnType<typeof readTargets>>) =>
      planPatch(resolved.hunks, resolved.byDisplay, current, options.operations)
    const seen = await readTargets(context, resolved.files, options)
    const proposed = plan(seen)
    await askPatch(context, resolved.files, proposed, options)
    const current = await readTargets(context, resolved.files, options)
    const unchanged = resolved.files.every((file) => sameFile(seen.get(file.key)!, current.get(file.key)!))
    const final = unchanged ? proposed : plan(current)
    for (const write of final.writes) context.willChange?.(write.file.target.real)
    await commitWrites(final.writes, options.operations, context.abort)
    return result(final)
  })
}

/** Runs `work` holding every key's lock, taken one by one in the order given. */
function withLocks<T>(lock: PathLock, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = keys
  return first === undefined ? work() : lock.run(first, () => withLocks(lock, rest, work))
}

/**
 * `external_directory` for the files outside the directory, as `edit` asks it, then `edit` once
 * for every file, with the diff and OpenCode's per-file report for whoever approves.
 */
async function askPatch(
  context: Context,
  files: readonly PatchTarget[],
  plan: PatchPlan,
  options: FileOptions,
) {
  const fold = options.caseInsensitive ?? defaultCaseInsensitive()
  const outside = files.filter((file) => !file.target.inside)
  if (outside.length > 0) {
    const patterns = unique(outside.flatMap((file) => externalPatterns(file.target, "file", fold)))
    await context.ask({
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: {
        filepath: outside.map((file) => file.target.real).join(", "),
        directories: patterns.map((pattern) => pattern.slice(0, -2) || "/"),
      },
    })
  }
  await context.ask({
    permission: "edit",
    patterns: unique(files.flatMap((file) => file.target.patterns)),
    // As OpenCode asks: "always" approves every later patch.
    always: ["*"],
    metadata: {
      filepath: files.map((file) => file.target.display).join(", "),
      diff: plan.diff,
      files: plan.files,
    },
  })
}

function result(plan: PatchPlan) {
  const lines = plan.patched.map((file) => {
    if (file.type === "add") return `A ${file.path}`
    if (file.type === "delete") return `D ${file.path}`
    return `M ${file.movePath ?? file.path}`
  })
  return {
    title: plan.files.map((file) => file.relativePath).join(", "),
    output: `Success. Updated the following files:\n${lines.join("\n")}`,
    // diagnostics as OpenCode reports them (empty: no language server here).
    metadata: { diff: plan.diff, files: plan.files, diagnostics: {} },
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
