import * as path from "node:path"
import { z } from "zod"
import { define, type ToolInfo } from "../tool/tool.js"
import { ignoreGlobs } from "./ignore.js"
import { newestFirst } from "./mtime.js"
import type { PathOptions } from "./paths.js"
import { isProtected, protectedPaths } from "./protected-paths.js"
import { checkGlob, searchScope, showFound } from "./search-scope.js"

export const GLOB_LIMIT = 100
// Files looked at to pick the newest: beyond this the search is too broad to sort usefully.
const SCAN_LIMIT = 2000

const Parameters = z.object({
  pattern: z.string().min(1).describe('The glob to match, e.g. "**/*.ts" or "src/**/*.test.ts"'),
  path: z.string().optional().describe("The directory to search in; default: the working directory"),
})

const DESCRIPTION = `Finds files by name with a glob pattern ("**/*.ts", "src/**/index.{js,ts}").
- Returns paths sorted by modification time, newest first, at most ${GLOB_LIMIT}.
- Dependency and build directories (node_modules, .git, dist, ...) are skipped unless the pattern names them.`

/** The `glob` tool: asks `glob` with the searched directory relative to the working directory. */
export function globTool(options: PathOptions): ToolInfo<typeof Parameters> {
  return define("glob", {
    description: DESCRIPTION,
    fileChanges: "none",
    parameters: Parameters,
    async execute(args, context) {
      checkGlob(args.pattern, "pattern")
      const scope = await searchScope("glob", args.path, context, options)
      const hidden = await protectedPaths(context, options)
      const found = (
        await options.operations.glob(args.pattern, {
          cwd: scope.target.real,
          ignore: ignoreGlobs(args.pattern),
          limit: SCAN_LIMIT,
          signal: context.abort,
        })
      ).filter((file) => !isProtected(path.join(scope.target.real, file), hidden))
      const files = found.map((file) => ({ file, absolute: path.join(scope.target.real, file) }))
      const sorted = await newestFirst(options.operations, files)
      const shown = sorted.slice(0, GLOB_LIMIT).map((item) => showFound(scope, item.file))
      const total = found.length >= SCAN_LIMIT ? `at least ${SCAN_LIMIT}` : String(found.length)
      const note =
        found.length > GLOB_LIMIT
          ? `\n\n(Showing the ${GLOB_LIMIT} most recently modified of ${total} files. Use a more specific pattern or path.)`
          : ""
      return {
        title: args.pattern,
        output: shown.length === 0 ? "No files found" : shown.join("\n") + note,
        metadata: { count: found.length, truncated: found.length > GLOB_LIMIT },
      }
    },
  })
}
