import { z } from "zod"
import { InvalidPatternError } from "./errors.js"
import type { GrepFindings, GrepSearch } from "./grep-match.js"
import { MAX_KEPT } from "./grep-match.js"
import { ignoredDirectories } from "./ignore.js"
import type { Operations } from "./operations.js"

/**
 * Whether `rg` runs where the operations run (which may be another machine than this one),
 * found out once per probe: `rg --version` exits 0. A port that cannot run commands has none.
 */
export function ripgrepProbe(operations: Operations, directory: string): () => Promise<boolean> {
  let found: Promise<boolean> | undefined
  return () => {
    found ??= operations
      .exec("rg --version", { cwd: directory, signal: new AbortController().signal, onData: () => {} })
      .then((result) => result.exitCode === 0)
      .catch(() => false)
    return found
  }
}

// What ripgrep's --json prints for a matching line; other message types are skipped.
const MatchMessage = z.object({
  type: z.literal("match"),
  data: z.object({
    path: z.object({ text: z.string() }),
    lines: z.object({ text: z.string() }),
    line_number: z.number(),
  }),
})

/**
 * grep with ripgrep: its own .gitignore handling and speed, hidden files included, the ignored
 * directories and .git excluded. Output comes as JSON lines, parsed as they arrive.
 */
export async function searchWithRipgrep(operations: Operations, search: GrepSearch): Promise<GrepFindings> {
  const findings: GrepFindings = { matches: [], total: 0 }
  const errors: string[] = []
  let pending = ""
  const take = (line: string) => {
    if (line.trim() === "") return
    const parsed = parseLine(line)
    if (parsed === undefined) errors.push(line)
    else if (parsed !== null) {
      findings.total++
      if (findings.matches.length < MAX_KEPT) findings.matches.push(parsed)
    }
  }
  const result = await operations.exec(ripgrepCommand(search), {
    cwd: search.cwd,
    signal: search.signal,
    onData(chunk) {
      const lines = (pending + chunk).split("\n")
      pending = lines.pop() ?? ""
      for (const line of lines) take(line)
    },
  })
  take(pending)
  search.signal.throwIfAborted()
  // 1: nothing matched. 2 with matches: some files could not be read, the rest is good.
  if (result.exitCode === 2 && findings.total === 0)
    throw new InvalidPatternError({
      message: `ripgrep failed: ${errors.join("\n").trim()}`,
      pattern: search.pattern,
    })
  return findings
}

export function ripgrepCommand(search: GrepSearch): string {
  const args = ["rg", "--json", "--hidden", "--no-messages", "--glob", "!.git"]
  for (const name of ignoredDirectories(search.include)) if (name !== ".git") args.push("--glob", `!${name}`)
  if (search.include) args.push("--glob", search.include)
  args.push("--regexp", search.pattern, "--", search.target)
  return args.map(quote).join(" ")
}

/** A match, null for another JSON message, undefined for a line that is not ripgrep's JSON. */
function parseLine(line: string): { file: string; line: number; text: string } | null | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  const parsed = MatchMessage.safeParse(value)
  if (!parsed.success) return null
  const { data } = parsed.data
  const file = data.path.text.replace(/^\.\//, "")
  return { file, line: data.line_number, text: data.lines.text.replace(/\r?\n$/, "") }
}

/** A POSIX shell word: single quotes, and a quote inside closed, escaped and reopened. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
