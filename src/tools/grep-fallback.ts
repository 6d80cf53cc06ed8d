import * as path from "node:path"
import { isBinary } from "./file-kind.js"
import {
  type GrepFindings,
  type GrepMatch,
  type GrepSearch,
  includeGlob,
  MAX_KEPT,
  toRegExp,
} from "./grep-match.js"
import { ignoreGlobs } from "./ignore.js"
import type { Operations } from "./operations.js"

// Larger files are logs or data, not code: skipped as ripgrep users would skip them by hand.
const MAX_FILE_BYTES = 10 * 1024 * 1024

/**
 * grep without ripgrep: the files come from the port's glob (skipping the ignored directories),
 * each is read and searched line by line with a JavaScript RegExp. Binary files, big files and
 * links leading out of the searched directory are skipped.
 */
export async function searchWithoutRipgrep(
  operations: Operations,
  search: GrepSearch,
): Promise<GrepFindings> {
  const regexp = toRegExp(search.pattern)
  const base = await operations.realpath(search.cwd)
  const files =
    search.target === "."
      ? await operations.glob(includeGlob(search.include), {
          cwd: search.cwd,
          ignore: ignoreGlobs(search.include),
          signal: search.signal,
        })
      : [search.target]
  const findings: GrepFindings = { matches: [], total: 0 }
  for (const file of files.sort()) {
    search.signal.throwIfAborted()
    const text = await readSearchable(operations, path.join(search.cwd, file), base)
    if (text !== undefined) collect(findings, file, text, regexp)
  }
  return findings
}

async function readSearchable(
  operations: Operations,
  file: string,
  base: string,
): Promise<string | undefined> {
  const real = await operations.realpath(file)
  const rel = path.relative(base, real)
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined
  const stat = await operations.stat(real)
  if (stat?.type !== "file" || stat.size > MAX_FILE_BYTES) return undefined
  const bytes = await operations.readFile(real)
  return isBinary(real, bytes) ? undefined : Buffer.from(bytes).toString("utf8")
}

function collect(findings: GrepFindings, file: string, text: string, regexp: RegExp): void {
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    if (!regexp.test(lines[index]!)) continue
    findings.total++
    const match: GrepMatch = { file: file.split(path.sep).join("/"), line: index + 1, text: lines[index]! }
    if (findings.matches.length < MAX_KEPT) findings.matches.push(match)
  }
}
