import type { Context } from "../tool/tool.js"
import {
  alwaysPatterns,
  defaultCaseInsensitive,
  externalPatterns,
  type PathOptions,
  type Target,
} from "./paths.js"
import { refuseProtected } from "./protected-paths.js"

export type AccessRequest = {
  /** The tool's own permission: "read", "edit", "glob", ... */
  permission: string
  /** Whether the tool treats the target as a file or a directory (a directory is its own folder). */
  kind: "file" | "directory"
  /** Shown with the tool's request (a diff, say). */
  metadata?: Record<string, unknown>
}

/**
 * Asks for everything a call on `target` needs: `external_directory` first when it lies outside
 * the directory, then the tool's own permission. A protected path (the runtime's own data) is
 * refused first, with ProtectedPathError. Every built-in file tool goes through here, so
 * none can act without the rules having had their say.
 */
export async function askAccess(
  context: Context,
  target: Target,
  request: AccessRequest,
  options: Pick<PathOptions, "caseInsensitive" | "directory" | "operations">,
): Promise<void> {
  // Before any ask: no answer makes these paths reachable.
  await refuseProtected(context, target, options)
  const fold = options.caseInsensitive ?? defaultCaseInsensitive()
  if (!target.inside) {
    const patterns = externalPatterns(target, request.kind, fold)
    await context.ask({
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: {
        filepath: target.real,
        directories: patterns.map((pattern) => pattern.slice(0, -2) || "/"),
      },
    })
  }
  await context.ask({
    permission: request.permission,
    patterns: target.patterns,
    always: alwaysPatterns(target.patterns, request.kind),
    metadata: { filepath: target.real, ...request.metadata },
  })
}
