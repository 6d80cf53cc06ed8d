import type { WithParts } from "../message/info.js"
import type { Part } from "../message/part.js"
import { INLINED_MIMES } from "../message/to-model-messages.js"
import { CLEARED_OUTPUT } from "../message/tool-ui-part.js"

const CHARS_PER_TOKEN = 4
// An image or PDF costs the model roughly a thousand tokens, whatever its size in base64.
const MEDIA_CHARS = 4_000

/** A rough token count of `text`: characters / 4. Good enough to budget, never to bill. */
export function estimateTokens(text: string): number {
  return Math.round(text.length / CHARS_PER_TOKEN)
}

/** The estimated tokens a message costs in the model's context. */
export function estimateMessage(message: WithParts): number {
  let chars = 0
  for (const part of message.parts) chars += partChars(part)
  return Math.round(chars / CHARS_PER_TOKEN)
}

function partChars(part: Part): number {
  switch (part.type) {
    case "text":
      return part.ignored ? 0 : part.text.length
    case "reasoning":
      return part.text.length
    case "file":
      // Inlined files are already counted as the text parts the prompt made of them.
      return INLINED_MIMES.has(part.mime) ? 0 : MEDIA_CHARS
    case "tool": {
      const state = part.state
      const input = JSON.stringify(state.input).length
      if (state.status === "completed")
        return input + (state.time.compacted ? CLEARED_OUTPUT.length : state.output.length)
      if (state.status === "error") return input + state.error.length
      return input
    }
    default:
      return 0
  }
}
