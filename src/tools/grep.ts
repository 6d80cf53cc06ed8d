import * as path from "node:path"
import { z } from "zod"
import { type Context, define, type ToolInfo } from "../tool/tool.js"
import { searchWithoutRipgrep } from "./grep-fallback.js"
import { type GrepFindings, type GrepMatch, toRegExp } from "./grep-match.js"
import { askToRead, checkRead } from "./grep-read-rules.js"
import { newestFirst } from "./mtime.js"
import type { PathOptions } from "./paths.js"
import { isProtected, protectedPaths } from "./protected-paths.js"
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
- Binary files and dependency or build directories (node_modules, .git, dist, ...) are skipped.
- Files the read permission rules deny are left out (the result says how many); files whose reading needs the user's approval are shown once the user allows it.`

/**
 * What `grepTool` takes: the directory and operations of every file tool (`FileToolOptions`),
 * and optionally how to tell whether ripgrep can run. `codingTools` passes one check shared by
 * its tools; a grep tool made alone probes on its first call.
 */
export type GrepOptions = PathOptions & {
  /** Whether ripgrep can run; default: asks the operations once (`rg --version`). */
  hasRipgrep?: () => Promise<boolean>
}

/**
 * The `grep` tool: asks `grep` with the searched path relative to the working directory, then
 * shows only the matching files the `read` rules let the read tool show (see grep-read-rules.ts).
 */
export function grepTool(options: GrepOptions): ToolInfo<typeof Parameters> {
  const hasRipgrep = options.hasRipgrep ?? ripgrepProbe(options.operations, options.directory)
  return define("grep", {
    description: DESCRIPTION,
    fileChanges: "none",
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
      const hidden = await protectedPaths(context, options)
      const visible = withoutProtected(findings, search.cwd, hidden)
      const shown = await underReadRules(context, options, search.cwd, visible)
      return {
        title: args.pattern,
        output: format(scope, shown),
        metadata: {
          matches: shown.total,
          truncated: shown.total > GREP_LIMIT,
          leftOut: shown.leftOut,
          ripgrep,
        },
      }
    },
  })
}

/** The findings without the matches in protected paths (the runtime's own data), as if never found. */
function withoutProtected(findings: GrepFindings, cwd: string, hidden: readonly string[]): GrepFindings {
  if (hidden.length === 0) return findings
  const matches = findings.matches.filter((match) => !isProtected(path.join(cwd, match.file), hidden))
  return { ...findings, matches, total: findings.total - (findings.matches.length - matches.length) }
}

type FileMatches = { file: string; absolute: string; matches: GrepMatch[] }

/** What grep may show: files newest first, their match count, and how many files were left out. */
type Shown = { files: FileMatches[]; total: number; leftOut: number }

/**
 * The matching files the `read` rules let grep show. Denied files are left out. Of the files left
 * to ask, those among the first GREP_LIMIT lines are asked for in one request: shown once
 * allowed; left out with every file left to ask when the request is denied (headless runtimes).
 */
async function underReadRules(
  context: Context,
  options: PathOptions,
  cwd: string,
  findings: GrepFindings,
): Promise<Shown> {
  let checked = await checkRead(context, await matchingFiles(options, cwd, findings), options)
  const asked = firstLines(checked.filter((file) => file.action !== "deny")).filter(
    (file) => file.action === "ask",
  )
  if (!(await askToRead(context, asked)))
    checked = checked.map((file) => (file.action === "ask" ? { ...file, action: "deny" as const } : file))
  const kept = checked.filter((file) => file.action !== "deny")
  const hidden = checked.filter((file) => file.action === "deny")
  const hiddenMatches = hidden.reduce((sum, file) => sum + file.matches.length, 0)
  return { files: firstLines(kept), total: findings.total - hiddenMatches, leftOut: hidden.length }
}

/** The files with matches, the most recently modified first, each file's matches in line order. */
async function matchingFiles(
  options: PathOptions,
  cwd: string,
  findings: GrepFindings,
): Promise<FileMatches[]> {
  const byFile = new Map<string, GrepMatch[]>()
  for (const match of findings.matches) byFile.set(match.file, [...(byFile.get(match.file) ?? []), match])
  const files = [...byFile.keys()].map((file) => ({ file, absolute: path.join(cwd, file) }))
  return (await newestFirst(options.operations, files)).map(({ file, absolute }) => ({
    file,
    absolute,
    matches: byFile.get(file)!.sort((a, b) => a.line - b.line),
  }))
}

/** The leading files whose lines reach GREP_LIMIT: what the output has room for. */
function firstLines<T extends FileMatches>(files: readonly T[]): T[] {
  const taken: T[] = []
  let lines = 0
  for (const file of files) {
    if (lines >= GREP_LIMIT) break
    taken.push(file)
    lines += file.matches.length
  }
  return taken
}

/** Matches grouped by file, the most recently modified file first, at most GREP_LIMIT lines. */
function format(scope: Scope, shown: Shown): string {
  const leftOut =
    shown.leftOut === 0
      ? ""
      : `\n\n(${shown.leftOut} matching ${shown.leftOut === 1 ? "file was" : "files were"} left out by the read rules.)`
  if (shown.files.length === 0)
    return `${shown.leftOut === 0 ? "No matches found" : "No matches shown"}${leftOut}`
  const blocks: string[] = []
  let lines = 0
  for (const { file, matches } of shown.files) {
    const taken = matches.slice(0, GREP_LIMIT - lines)
    lines += taken.length
    blocks.push(
      [
        `${showFound(scope, file)}:`,
        ...taken.map((match) => `  Line ${match.line}: ${cut(match.text)}`),
      ].join("\n"),
    )
  }
  const header = `Found ${shown.total} match${shown.total === 1 ? "" : "es"}`
  const more =
    shown.total > lines
      ? `\n\n(Showing ${lines} of ${shown.total} matches. Use a more specific pattern, path or include.)`
      : ""
  return `${header}\n\n${blocks.join("\n\n")}${more}${leftOut}`
}

function cut(text: string): string {
  return text.length > MAX_LINE_LENGTH ? `${text.slice(0, MAX_LINE_LENGTH)}...` : text
}
