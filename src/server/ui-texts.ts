import type { ReasoningPart, TextPart } from "../message/part.js"
import type { UIChunk } from "./ui-chunk.js"

type TextState = { kind?: "text" | "reasoning"; known: string; sent: number; ended: boolean }

/**
 * The text and reasoning chunks of a run. A delta is published at once while its part's update
 * waits for a storage write, so deltas may come first: they are held until an update says
 * whether the part is text or reasoning. A checkpoint written before the latest deltas is behind
 * them, so an update counts only when it is longer and agrees with what came.
 */
export function createTextChunks(emit: (chunk: UIChunk) => void) {
  const texts = new Map<string, TextState>()

  function stateOf(partID: string): TextState {
    const state = texts.get(partID) ?? { known: "", sent: 0, ended: false }
    texts.set(partID, state)
    return state
  }

  function flush(id: string, state: TextState): void {
    if (!state.kind || state.known.length <= state.sent) return
    emit({ type: `${state.kind}-delta`, id, delta: state.known.slice(state.sent) })
    state.sent = state.known.length
  }

  function close(id: string, state: TextState): void {
    if (!state.kind || state.ended) return
    state.ended = true
    emit({ type: `${state.kind}-end`, id })
  }

  return {
    delta(partID: string, delta: string): void {
      const state = stateOf(partID)
      if (state.ended) return
      state.known += delta
      flush(partID, state)
    },
    update(part: TextPart | ReasoningPart): void {
      const state = stateOf(part.id)
      if (state.ended) return
      if (part.text.length > state.known.length && part.text.startsWith(state.known)) state.known = part.text
      if (!state.kind) {
        state.kind = part.type
        emit({ type: `${part.type}-start`, id: part.id })
      }
      flush(part.id, state)
      if (part.time?.end !== undefined) close(part.id, state)
    },
    /** Ends the texts a cancelled or failed run left open, so that the message is complete. */
    closeAll(): void {
      for (const [id, state] of texts) close(id, state)
    },
  }
}
