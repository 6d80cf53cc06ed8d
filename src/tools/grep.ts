import * as path from "node:path"
import { z } from "zod"
import { define, type Info } from "../tool/tool.js"
import { searchWithoutRipgrep } from "./grep-fallback.js"
import { type GrepFindings, type GrepMatch, toRegExp } from "./grep-match.js"
import { newestFirst } from "./mtime.js"
import type { PathOptions } from "./paths.js"
import { MAX_LINE_LENGTH } from "./read-text.js"
import { ripgrepProbe, searchWithRipgrep } from "./ripgrep.js"
import { checkGlob, type Scope, searchScope, showFound } from "./search-scope.js"

export const GREP_LIMIT = 100

const Parameters = z.object({
  pattern: z.string().min(1).describe("The regular expression to search file contents for"),
  path: z
    .string()
    .optional()
    .describe("The directory (or file) to search in; default: the working directory"),
  include: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "*.{ts,tsx}"'),
})

const DESCRIPTION = `Searches file contents with a regular expression.
- Returns matching lines grouped by file, files sorted by modification time (newest first), at most ${GREP_LIMIT} matches.
- Use include to filter files by name ("*.ts", "src/**/*.{ts,tsx}"). Start a pattern with (?i) to ignore case.
- Binary files and dependency or build directories (node_modules, .git, dist, ...) are skipped.`

export type GrepOptions = PathOptions & {
  /** Whether ripgrep can run; default: asks the operations once (`rg --version`). */
  hasRipgrep?: () => Promise<boolean>
}

/** The `grep` tool: asks `grep` with the searched path relative to the working directory. */
export function grepTool(options: GrepOptions): Info<typeof Parameters> {
  const hasRipgrep = options.hasRipgrep ?? ripgrepProbe(options.operations, options.directory)
  return define("grep", {
    description: DESCRIPTION,
    parameters: Parameters,
    async execute(args, context) {
      const ripgrep = await hasRipgrep()
      // Checked before asking; ripgrep checks its own (Rust) syntax, which JavaScript may not share.
      if (!ripgrep) toRegExp(args.pattern)
      if (args.include) checkGlob(args.include, "include")
      const scope = await searchScope("grep", args.path, context, { ...options, allowFile: true })
      const search = {
        pattern: args.pattern,
        include: args.include,
        cwd: scope.kind === "file" ? path.dirname(scope.target.real) : scope.target.real,
        target: scope.kind === "file" ? path.basename(scope.target.real) : ".",
        signal: context.abort,
      }
      const findings = ripgrep
        ? await searchWithRipgrep(options.operations, search)
        : await searchWithoutRipgrep(options.operations, search)
      return {
        title: args.pattern,
        output: await format(options, scope, search.cwd, findings),
        metadata: { matches: findings.total, truncated: findings.total > GREP_LIMIT, ripgrep },
      }
    },
  })
}

/** Matches grouped by file, the most recently modified file first, at most GREP_LIMIT lines. */
async function format(
  options: PathOptions,
  scope: Scope,
  cwd: string,
  findings: GrepFindings,
): Promise<string> {
  if (findings.total === 0) return "No matches found"
  const byFile = new Map<string, GrepMatch[]>()
  for (const match of findings.matches) byFile.set(match.file, [...(byFile.get(match.file) ?? []), match])
  const files = [...byFile.keys()].map((file) => ({ file, absolute: path.join(cwd, file) }))
  const blocks: string[] = []
  let shown = 0
  for (const { file } of await newestFirst(options.operations, files)) {
    if (shown >= GREP_LIMIT) break
    const lines = byFile
      .get(file)!
      .sort((a, b) => a.line - b.line)
      .slice(0, GREP_LIMIT - shown)
    shown += lines.length
    blocks.push(
      [
        `${showFound(scope, file)}:`,
        ...lines.map((match) => `  Line ${match.line}: ${cut(match.text)}`),
      ].join("\n"),
    )
  }
  const header = `Found ${findings.total} match${findings.total === 1 ? "" : "es"}`
  const note =
    findings.total > shown
      ? `\n\n(Showing ${shown} of ${findings.total} matches. Use a more specific pattern, path or include.)`
      : ""
  return `${header}\n\n${blocks.join("\n\n")}${note}`
}

function cut(text: string): string {
  return text.length > MAX_LINE_LENGTH ? `${text.slice(0, MAX_LINE_LENGTH)}...` : text
}
