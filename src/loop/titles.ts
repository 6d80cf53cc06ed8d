import { type LanguageModel, streamText } from "ai"
import type { AgentInfo } from "../agent/info.js"
import { TITLE } from "../agent/prompts/title.js"
import type { WithParts } from "../message/info.js"
import { isDefaultTitle } from "../session/title.js"
import { createAbortGroup } from "../util/abort-group.js"
import type { LoopDeps } from "./loop-deps.js"

const MAX_LENGTH = 100
// A title needs the gist, not a pasted log file: cap what is sent to the (small) model.
const MAX_INPUT = 10_000

export type GenerateTitleInput = {
  /** The model to ask; the provider's small model when it has one. */
  model: LanguageModel
  /** The `title` agent: its prompt, temperature and topP are used. */
  agent: AgentInfo
  /** The text of the session's first real user message. */
  text: string
  abort?: AbortSignal
}

/**
 * Asks the title agent for a title for a conversation that starts with `text`. Resolves with
 * undefined instead of failing (model error, abort, empty answer), because a title is a
 * nicety: the session keeps its default title.
 */
export async function generateTitle(input: GenerateTitleInput): Promise<string | undefined> {
  try {
    const result = streamText({
      model: input.model,
      system: input.agent.prompt ?? TITLE,
      prompt: `Write a title for the conversation that starts with this message:\n\n<message>\n${input.text.slice(0, MAX_INPUT)}\n</message>`,
      ...(input.agent.temperature === undefined ? {} : { temperature: input.agent.temperature }),
      ...(input.agent.topP === undefined ? {} : { topP: input.agent.topP }),
      ...(input.abort ? { abortSignal: input.abort } : {}),
      // Failures resolve to undefined below; the SDK need not log them too.
      onError: () => {},
    })
    let text = ""
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") text += part.text
      // Half a title from a stream that failed is worse than the default title.
      else if (part.type === "error" || part.type === "abort") return undefined
    }
    return cleanTitle(text)
  } catch {
    return undefined
  }
}

/**
 * The title in a model's answer: reasoning in `<think>` tags dropped (an unclosed one at the
 * start means the answer never got past thinking), then the first non-empty line without
 * surrounding quotes, cut to 100 characters. Undefined when nothing is left.
 */
export function cleanTitle(answer: string): string | undefined {
  const visible = answer.replace(/<think>[\s\S]*?<\/think>/gi, "").replace(/^\s*<think>[\s\S]*$/i, "")
  const line = visible
    .split(/\r?\n/)
    .map((candidate) => stripQuotes(candidate.trim()))
    .find((candidate) => candidate !== "")
  if (line === undefined) return undefined
  const characters = Array.from(line)
  if (characters.length <= MAX_LENGTH) return line
  return `${characters
    .slice(0, MAX_LENGTH - 1)
    .join("")
    .trimEnd()}…`
}

const QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "`": "`",
  "“": "”",
  "‘": "’",
  "«": "»",
  "„": "“",
  "「": "」",
}

// Only quotes that wrap the whole line: a title may end in quoted code, as in Fix `npm test`.
function stripQuotes(line: string): string {
  let title = line
  while (title.length >= 2 && QUOTES[title[0]!] === title[title.length - 1]) title = title.slice(1, -1).trim()
  return title
}

/**
 * Titles of new top-level sessions, written by the hidden `title` agent on the small model
 * (the default model only when the host asked for titles) without holding up the loop. `closing` stops them; a failure keeps the default title.
 */
export function createTitles(deps: LoopDeps, closing: AbortSignal) {
  const titles = new Map<string, Promise<void>>()
  // Each title its own signal: the model call adds listeners to the one it gets.
  const closed = createAbortGroup(closing)
  return {
    start(sessionID: string, message: WithParts): void {
      const text = message.parts
        .flatMap((part) => (part.type === "text" && !part.synthetic && !part.ignored ? [part.text] : []))
        .join("\n")
      const agent = deps.agents.title
      if (titles.has(sessionID) || !text.trim() || !agent || !deps.provider || deps.titles === false) return
      const model = deps.provider.smallModel() ?? (deps.titles ? deps.provider.defaultModel() : undefined)
      if (!model) return
      const call = closed.join()
      const task = generateTitle({ model: model.language, agent, text, abort: call.controller.signal })
        .then(async (title) => {
          const current = await deps.session.get(sessionID)
          if (title && isDefaultTitle(current.title)) await deps.session.update(sessionID, { title })
        })
        .catch(() => undefined)
        .finally(() => {
          call.leave()
          titles.delete(sessionID)
        })
      titles.set(sessionID, task)
    },
    /** Resolves when every title being written has settled. */
    async settled(): Promise<void> {
      await Promise.allSettled(titles.values())
    },
  }
}
