import type { ReasoningPart, TextPart } from "../message/part.js"
import { abortable } from "../util/abortable.js"
import type { CallState, Stream } from "./call-state.js"
import { mergeMetadata } from "./metadata.js"

type TextEvent = Extract<
  Stream,
  { type: "text-start" | "text-delta" | "text-end" | "reasoning-start" | "reasoning-delta" | "reasoning-end" }
>

/**
 * Text and reasoning: created on start, grown on delta (published, checkpointed), finished on
 * end. Not async: a delta, the most frequent part by far, returns without a promise unless it
 * writes, since every extra microtask turn per part lets the SDK's queue grow.
 */
export function handleText(
  state: CallState,
  part: TextEvent,
  receivedAt: number,
): Promise<unknown> | undefined {
  switch (part.type) {
    case "reasoning-start":
    case "text-start": {
      const type = part.type === "text-start" ? "text" : "reasoning"
      const created = { ...state.newPart(), type, text: "", time: { start: Date.now() } } as
        | TextPart
        | ReasoningPart
      if (part.providerMetadata) created.metadata = part.providerMetadata
      state.texts.set(part.id, created)
      return state.writePart(created, true)
    }
    case "reasoning-delta":
    case "text-delta": {
      const current = state.texts.get(part.id)
      if (!current) return
      if (part.providerMetadata) current.metadata = mergeMetadata(current.metadata, part.providerMetadata)
      // Some providers stream metadata alone (Anthropic's signature deltas): nothing to show.
      if (part.text === "") return
      current.text += part.text
      const { sessionID, messageID } = state
      state.runtime.session.updatePartDelta({
        sessionID,
        messageID,
        partID: current.id,
        field: "text",
        delta: part.text,
      })
      return state.checkpoints.due(current, receivedAt) ? state.writePart(current, true) : undefined
    }
    case "reasoning-end":
    case "text-end":
      return finishText(state, part)
  }
}

async function finishText(
  state: CallState,
  part: Extract<TextEvent, { type: "text-end" | "reasoning-end" }>,
) {
  const current = state.texts.get(part.id)
  if (!current) return
  state.checkpoints.cancel(current.id)
  current.text = current.text.trimEnd()
  const complete = state.hooks?.["text.complete"]
  if (current.type === "text" && complete) {
    const output = { text: current.text }
    const about = {
      sessionID: state.sessionID,
      messageID: state.messageID,
      partID: current.id,
      abort: state.abort,
    }
    // Until the hook is done the part stays open, so a cancel meanwhile still closes it.
    await abortable(complete(about, output), state.abort)
    current.text = output.text
  }
  state.texts.delete(part.id)
  current.time = { start: current.time?.start ?? Date.now(), end: Date.now() }
  if (part.providerMetadata) current.metadata = mergeMetadata(current.metadata, part.providerMetadata)
  // A `text.complete` hook may have set anything: storage checks what is not a string.
  await state.writePart(current, typeof current.text === "string")
}
