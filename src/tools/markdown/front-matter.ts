import { createRequire } from "node:module"
import { z } from "zod"
import { NamedError } from "../../error/named-error.js"
import { requirePackages, YAML_PACKAGES } from "../packages.js"

type Yaml = typeof import("yaml")

const FrontMatterData = z.object({
  message: z.string(),
  /** The file as the caller named it. */
  file: z.string(),
  /** The line of the file YAML stopped at, counted from 1, when it said. */
  line: z.number().optional(),
})

/**
 * A markdown file's front matter cannot be read: it is not YAML (even after the lenient retry),
 * it is not a mapping of keys to values, or its opening `---` is never closed.
 */
export class FrontMatterError extends NamedError<"FrontMatterError", z.infer<typeof FrontMatterData>> {
  static override readonly errorName = "FrontMatterError"
  static readonly Schema = z.object({ name: z.literal("FrontMatterError"), data: FrontMatterData })

  static of(file: string, problem: string, line?: number): FrontMatterError {
    const where = line === undefined ? "" : ` (line ${line})`
    return new FrontMatterError({ message: `${file}: invalid front matter${where}: ${problem}`, file, line })
  }
}

const FENCE = /^---[ \t]*$/

/**
 * Splits a markdown file into its YAML front matter and its body. The front matter is a first
 * line `---`, YAML, and a closing `---` line; the body is what follows the closing line. A file
 * without it is all body, with `data` empty. A byte order mark and CRLF line ends are fine.
 * YAML that does not parse is retried once the way OpenCode does, with each `key: a: b` value
 * read as a string (Claude Code's files carry such lines), then refused with `FrontMatterError`
 * naming `file` and YAML's reason; so is front matter that is not a mapping. Needs the optional
 * package `yaml` (MissingPackageError without it), loaded on first use.
 */
export function parseFrontMatter(
  text: string,
  file: string,
): { data: Record<string, unknown>; body: string } {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text
  const parts = split(source, file)
  if (parts === undefined) return { data: {}, body: text }
  const yaml = loadYaml()
  let parsed = parseYaml(yaml, parts.block)
  // The first failure is reported: its line is the file's, the retry's is of rewritten text.
  if ("reason" in parsed) {
    const retried = parseYaml(yaml, lenient(parts.block))
    if ("reason" in retried) throw FrontMatterError.of(file, parsed.reason, parsed.line)
    parsed = retried
  }
  const value = parsed.value
  if (value === null || value === undefined) return { data: {}, body: parts.body }
  if (typeof value !== "object" || Array.isArray(value)) {
    throw FrontMatterError.of(file, "it must be a mapping of keys to values (`key: value` lines)")
  }
  return { data: value as Record<string, unknown>, body: parts.body }
}

/** The YAML between the fences (LF line ends) and the body after the closing one; undefined without front matter. */
function split(source: string, file: string): { block: string; body: string } | undefined {
  const lines = source.split("\n")
  if (!FENCE.test(withoutCR(lines[0] ?? ""))) return undefined
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(withoutCR(line)))
  if (close === -1) throw FrontMatterError.of(file, "the opening `---` line has no closing `---` line")
  return {
    block: lines.slice(1, close).map(withoutCR).join("\n"),
    body: lines.slice(close + 1).join("\n"),
  }
}

const withoutCR = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line)

type Parsed = { value: unknown } | { reason: string; line: number | undefined }

/** The block's value, or YAML's reason it is not YAML and the file's line it stopped at. */
function parseYaml(yaml: Yaml, block: string): Parsed {
  const document = yaml.parseDocument(block)
  const error = document.errors[0]
  if (error === undefined) return { value: document.toJS() }
  // YAML's message goes on with the position and a drawing of the line; the line is kept apart.
  const reason = error.message.split(" at line ")[0] ?? error.message
  // The block starts on the file's second line.
  return { reason, line: error.linePos === undefined ? undefined : error.linePos[0].line + 1 }
}

/**
 * OpenCode's fallback: a top-level `key: value` whose unquoted value holds a colon becomes a
 * `|-` block scalar, so the value is read as the string it was meant to be.
 */
function lenient(block: string): string {
  return block
    .split("\n")
    .flatMap((line) => {
      const match = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line)
      const value = match?.[2]?.trim() ?? ""
      if (match === null || !value.includes(":") || /^["'|>]/.test(value)) return [line]
      return [`${match[1]}: |-`, `  ${value}`]
    })
    .join("\n")
}

function loadYaml(): Yaml {
  requirePackages("markdown front matter (agents, commands, skills)", YAML_PACKAGES)
  // Loaded here, synchronously, so that importing the tools needs no yaml.
  return createRequire(import.meta.url)("yaml") as Yaml
}
