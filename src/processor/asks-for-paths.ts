import { InvalidInputError } from "../error/invalid-input.js"
import { externalPattern, resolvePath } from "../permission/path-pattern.js"
import type { Context } from "../tool/tool.js"

type AskRequest = Parameters<Context["ask"]>[0]

/**
 * A tool's `ask({ paths: true })` as the built-in file tools ask (src/tools/access.ts): each
 * path resolved against the directory, since a raw `src/../../etc/shadow` would match `src/*`;
 * a path outside asks `external_directory` first with its folder, then the tool's permission
 * with the absolute path.
 */
export function asksForPaths(request: AskRequest, directory: string | undefined): AskRequest[] {
  if (directory === undefined)
    throw new InvalidInputError({
      message: "Invalid ask: paths: this tool context has no directory to resolve paths against",
      issues: [{ path: "paths", message: "the tool context has no directory" }],
    })
  const targets = request.patterns.map((path) => resolvePath(path, directory))
  const own: AskRequest = {
    permission: request.permission,
    patterns: unique(targets.map((target) => target.pattern)),
    ...(request.always === undefined
      ? {}
      : { always: unique(request.always.map((path) => resolvePath(path, directory).pattern)) }),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  }
  const outside = unique(targets.filter((target) => !target.inside).map((target) => target.absolute))
  if (outside.length === 0) return [own]
  const folders = unique(outside.map(externalPattern))
  const external: AskRequest = {
    permission: "external_directory",
    patterns: folders,
    always: folders,
    metadata: { ...request.metadata, directories: folders.map((folder) => folder.slice(0, -2) || "/") },
  }
  return [external, own]
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
