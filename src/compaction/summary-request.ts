import type { ModelMessage } from "ai"
import type { WithParts } from "../message/info.js"
import type { Part, ToolPart } from "../message/part.js"
import { type TargetModel, toModelMessages } from "../message/to-model-messages.js"
import { CLEARED_OUTPUT, INTERRUPTED_OUTPUT } from "../message/tool-ui-part.js"
import { SUMMARY_TOOL_OUTPUT_CHARS } from "./config.js"
import { estimateMessage, estimateTokens } from "./estimate.js"
import { asNote, attachedNote, isMedia } from "./media.js"

/**
 * How hard a summary request squeezes the history: "normal" cuts tool outputs and turns media
 * into notes; "reduced" (for a request that would not fit) also clears tool outputs, cuts long
 * texts, drops reasoning, and leaves out the oldest messages until the rest fits `budget`.
 */
export type SummaryLevel = "normal" | "reduced"

export type SummaryRequest = {
  messages: ModelMessage[]
  /** Estimated prompt tokens of `messages`. */
  tokens: number
  /** Messages left out to fit the budget (only when reduced). */
  omitted: number
}

const FIRST_SUMMARY =
  "Summarise the conversation above in the sections your instructions list. Your summary will replace the conversation, so keep everything needed to continue the work."
const UPDATED_SUMMARY =
  "The conversation above begins with your previous summary. Write an updated summary in the sections your instructions list: fold in everything that happened since, keep what still matters from the previous summary and drop what no longer does. Your summary will replace the conversation, so keep everything needed to continue the work."

/**
 * The model messages that ask for a summary of `history` (oldest first, starting with the
 * previous compaction request and summary when there is one), ending with the instruction.
 */
export async function buildSummaryRequest(input: {
  history: readonly WithParts[]
  model: TargetModel
  level: SummaryLevel
  /** Estimated tokens the reduced request must fit in. */
  budget: number
  protectedTools: readonly string[]
}): Promise<SummaryRequest> {
  const { level, protectedTools } = input
  const updating = input.history[1]?.info.role === "assistant" && input.history[1].info.summary === true
  const shrunk = input.history.map((message) => shrink(message, level, new Set(protectedTools)))
  const costs = shrunk.map(estimateMessage)
  const instruction = updating ? UPDATED_SUMMARY : FIRST_SUMMARY
  let tokens = estimateTokens(instruction) + costs.reduce((sum, cost) => sum + cost, 0)
  // The previous summary is the one thing the new one cannot be written without.
  const keep = updating ? 2 : 0
  let omitted = 0
  if (level === "reduced")
    while (tokens > input.budget && keep + omitted < shrunk.length) tokens -= costs[keep + omitted++]!
  const messages = await toModelMessages(shrunk.slice(0, keep), input.model)
  if (omitted > 0)
    // Where the left-out messages were, and as a user turn: providers reject a conversation
    // that opens with the assistant.
    messages.push({
      role: "user",
      content: `(${omitted} earlier messages are left out here: they did not fit the context window.)`,
    })
  messages.push(...(await toModelMessages(shrunk.slice(keep + omitted), input.model)))
  messages.push({ role: "user", content: instruction })
  return { messages, tokens, omitted }
}

function shrink(message: WithParts, level: SummaryLevel, protectedTools: ReadonlySet<string>): WithParts {
  const parts = message.parts.flatMap((part): Part[] => {
    switch (part.type) {
      case "file":
        return message.info.role === "user" && isMedia(part) ? [asNote(part)] : [part]
      case "text":
        return level === "reduced" ? [{ ...part, text: cut(part.text, SUMMARY_TOOL_OUTPUT_CHARS) }] : [part]
      case "reasoning":
        return level === "reduced" ? [] : [part]
      case "tool": {
        const clear = level === "reduced" && !protectedTools.has(part.tool)
        return [{ ...base(part), type: "text", text: toolTranscript(part, clear), synthetic: true }]
      }
      default:
        return [part]
    }
  })
  return { info: message.info, parts }
}

/**
 * A tool call as text. The summary call offers no tools, and some providers (Bedrock, older
 * Anthropic API versions) reject tool calls and results in a request that defines none.
 */
function toolTranscript(part: ToolPart, clear: boolean): string {
  const limit = SUMMARY_TOOL_OUTPUT_CHARS
  const state = part.state
  const call = `[Tool call: ${part.tool} ${cut(JSON.stringify(state.input), limit)}]`
  switch (state.status) {
    case "completed": {
      const output = clear || state.time.compacted ? CLEARED_OUTPUT : cut(state.output, limit)
      const notes = (state.attachments ?? []).map(attachedNote)
      return [call, "[Tool result]", output, ...notes].join("\n")
    }
    case "error":
      return [call, "[Tool error]", cut(state.error, limit)].join("\n")
    default:
      return [call, INTERRUPTED_OUTPUT].join("\n")
  }
}

function base(part: Part) {
  return { id: part.id, sessionID: part.sessionID, messageID: part.messageID }
}

function cut(text: string, limit: number): string {
  if (text.length <= limit) return text
  return `${text.slice(0, limit)}\n[${text.length - limit} more characters cut]`
}
