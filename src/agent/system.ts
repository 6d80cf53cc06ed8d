import type { Info } from "./info.js"
import { DEFAULT } from "./prompts/default.js"

/**
 * What the model is told about where it runs; each field is left out of the prompt when absent.
 * Passed in so the function stays pure and testable. The runtime's `environment` option decides
 * which fields it fills: only the date by default, the directory, git and platform as well
 * for `"workspace"` (the coding preset).
 */
export type Environment = {
  /** The working directory tools run in. */
  directory?: string
  /** Whether the directory is a git repository; omitted when unknown, and then not mentioned. */
  git?: boolean
  /** The host's platform, as `process.platform` names it ("linux", "darwin", "win32"). */
  platform?: string
  /** Now. Only the local calendar day is shown, so the prompt stays the same all day (and cacheable). */
  date?: Date
}

/**
 * What `systemPrompt` builds the system prompt from: the agent, the environment, the runtime's
 * instructions and the user message's `system`. A custom loop fills it to send the same system
 * prompt the runtime would.
 */
export type SystemPromptInput = {
  /** The agent answering; its `prompt` (else the default prompt) is the first block. */
  agent: Info
  /** Absent: no environment block. */
  environment?: Environment
  /** The runtime's extra system text, in order. */
  instructions?: readonly string[]
  /** The `system` of the user message being answered. */
  user?: string
}

/**
 * The system prompt for one model call, as blocks in order: the agent's prompt (the default
 * prompt when it has none), the environment, the runtime's instructions, the user message's
 * `system`. Blocks rather than one string so the loop can send the stable head as its own
 * system message (prompt caching) and hooks can edit one block without parsing the rest.
 * Empty blocks are left out.
 */
export function systemPrompt(input: SystemPromptInput): string[] {
  const blocks = [
    input.agent.prompt ?? DEFAULT,
    input.environment ? environmentBlock(input.environment) : "",
    ...(input.instructions ?? []),
    input.user ?? "",
  ]
  return blocks.filter((block) => block.trim() !== "")
}

/** The environment as a block of the system prompt; empty when no field is given. */
export function environmentBlock(environment: Environment): string {
  const lines: string[] = []
  if (environment.directory !== undefined) lines.push(`Working directory: ${environment.directory}`)
  if (environment.git !== undefined)
    lines.push(`Is the directory a git repository: ${environment.git ? "yes" : "no"}`)
  if (environment.platform !== undefined) lines.push(`Platform: ${environment.platform}`)
  if (environment.date !== undefined) lines.push(`Today's date: ${formatDate(environment.date)}`)
  if (lines.length === 0) return ""
  return ["Here is information about the environment you are running in:", "<env>", ...lines, "</env>"].join(
    "\n",
  )
}

/** YYYY-MM-DD in the host's time zone: "today" is the user's day, not UTC's. */
export function formatDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0")
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}
