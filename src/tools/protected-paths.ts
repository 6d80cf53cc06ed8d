import * as path from "node:path"
import type { Context } from "../tool/tool.js"
import { ProtectedPathError } from "./errors.js"
import { isWithin, type PathOptions, type Target } from "./paths.js"

/**
 * The call's protected paths (`Context.protectedPaths`) as given and with their links resolved,
 * as the tools resolve what they act on. One that holds the directory itself is left out: it
 * would refuse every path, and GitSnapshot keeps its data beside the tree, not around it.
 */
export async function protectedPaths(
  context: Pick<Context, "protectedPaths">,
  options: Pick<PathOptions, "directory" | "operations">,
): Promise<string[]> {
  const given = context.protectedPaths ?? []
  if (given.length === 0) return []
  const resolve = (file: string) => options.operations.realpath(file).catch(() => file)
  const directory = await resolve(path.resolve(options.directory))
  const paths = await Promise.all(
    given.map(async (data) => {
      const absolute = path.resolve(data.path)
      return [absolute, await resolve(absolute)]
    }),
  )
  return [...new Set(paths.flat())].filter((file) => !isWithin(directory, file))
}

/** Whether `file` (absolute) is one of the protected paths or lies under one. */
export function isProtected(file: string, paths: readonly string[]): boolean {
  return paths.some((protectedPath) => isWithin(file, protectedPath))
}

/** Throws ProtectedPathError when the target, as given or resolved, is a protected path or lies in one. */
export async function refuseProtected(
  context: Pick<Context, "protectedPaths">,
  target: Target,
  options: Pick<PathOptions, "directory" | "operations">,
): Promise<void> {
  const paths = await protectedPaths(context, options)
  if (isProtected(target.real, paths) || isProtected(target.path, paths))
    throw ProtectedPathError.of(target.display)
}
