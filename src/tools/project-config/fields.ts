import type { z } from "zod"
import type { ModelRef } from "../../message/part.js"
import { PROTO_KEY } from "../../util/own-names.js"
import { ProjectConfigError } from "./errors.js"

/** The file being mapped: where it is, whether it is one of Claude Code's, and where warnings go. */
export type MarkdownSource = { file: string; claude: boolean; warn: (message: string) => void }

/**
 * The front matter read by `schema`: keys without a value (`model:`) count as absent, unknown
 * keys are dropped, and a known key with a bad value is a ProjectConfigError naming it.
 */
export function readFields<T extends z.ZodType>(
  schema: T,
  data: Record<string, unknown>,
  file: string,
): z.infer<T> {
  const given = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== null))
  const parsed = schema.safeParse(given)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const field = issue?.path[0]
  const value = typeof field === "string" ? given[field] : undefined
  throw ProjectConfigError.of(
    file,
    `${issue?.message ?? "bad value"} (got ${JSON.stringify(value)})`,
    String(field),
  )
}

// Claude Code's names for its own models; `inherit` means the caller's, which is the default here too.
const CLAUDE_ALIASES = new Set(["sonnet", "opus", "haiku"])

/**
 * `provider/model` as a model reference, split at the first slash (`openrouter/openai/gpt-5`).
 * Claude Code's aliases and, in its files, its bare model IDs name no provider: ignored with a
 * warning, so the default model is used. Elsewhere a value without a provider is refused.
 */
export function modelOf(value: string | undefined, source: MarkdownSource): ModelRef | undefined {
  if (value === undefined || value === "inherit") return undefined
  const slash = value.indexOf("/")
  if (slash > 0 && slash < value.length - 1)
    return { providerID: value.slice(0, slash), modelID: value.slice(slash + 1) }
  if (CLAUDE_ALIASES.has(value) || source.claude) {
    source.warn(
      `${source.file}: model "${value}" names no provider (provider/model); ignored, the default model is used`,
    )
    return undefined
  }
  throw ProjectConfigError.of(source.file, `"${value}" is not a model ID of the form provider/model`, "model")
}

/**
 * An agent's or command's name as given, refused when no one could use it: blank, with spaces
 * (a command line splits there), or `__proto__` (a plain object cannot hold it).
 */
export function checkName(name: string, file: string): string {
  if (name === "" || /\s/.test(name) || name === PROTO_KEY)
    throw ProjectConfigError.of(file, `${JSON.stringify(name)} cannot name an agent or a command`, "name")
  return name
}
