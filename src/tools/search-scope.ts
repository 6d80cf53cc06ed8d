import * as path from "node:path"
import type { Context } from "../tool/tool.js"
import { askAccess } from "./access.js"
import { FileNotFoundError, InvalidPatternError, UnsupportedFileError } from "./errors.js"
import { type PathOptions, resolveTarget, type Target } from "./paths.js"

/** Where a glob, grep or list call searches: a resolved directory (or, for grep, a single file). */
export type Scope = { target: Target; kind: "file" | "directory" }

/**
 * Resolves the `path` argument of a search tool (default: the directory itself) and asks the
 * tool's permission for it, with `external_directory` first when it lies outside.
 */
export async function searchScope(
  permission: string,
  input: string | undefined,
  context: Context,
  options: PathOptions & { allowFile?: boolean },
): Promise<Scope> {
  const target = await resolveTarget(input ?? ".", options)
  const stat = await options.operations.stat(target.real)
  const kind = stat?.type === "file" && options.allowFile ? "file" : "directory"
  await askAccess(context, target, { permission, kind }, options)
  if (!stat) throw FileNotFoundError.of(target.display)
  if (stat.type !== "directory" && kind !== "file")
    throw UnsupportedFileError.of(target.display, "not-a-file", "Not a directory")
  return { target, kind }
}

/**
 * Globs are taken relative to the searched directory: one that is absolute or climbs out with
 * ".." would reach past what permission was asked for, so it is refused with a hint.
 */
export function checkGlob(pattern: string, what: string): void {
  const segments = pattern.split(/[/\\]/)
  if (path.isAbsolute(pattern) || /^[a-zA-Z]:/.test(pattern) || segments.includes(".."))
    throw new InvalidPatternError({
      message: `The ${what} ${JSON.stringify(pattern)} must be relative to the searched directory and stay inside it; pass the directory as \`path\` instead.`,
      pattern,
    })
}

/** A path found under the scope, shown relative to the working directory (absolute when outside). */
export function showFound(scope: Scope, relative: string): string {
  const base = scope.kind === "file" ? path.dirname(scope.target.real) : scope.target.real
  if (!scope.target.inside) return path.join(base, relative).split(path.sep).join("/")
  const folder = scope.kind === "file" ? path.posix.dirname(scope.target.display) : scope.target.display
  return folder === "." ? relative : `${folder}/${relative}`
}
