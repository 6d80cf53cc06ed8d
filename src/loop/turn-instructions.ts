import type { InstructionSource } from "../agent/instructions.js"
import { abortable } from "../util/abortable.js"
import { createLru } from "../util/lru.js"

/** The turns whose resolved instructions are kept: one per session running at once is enough. */
const TURNS_KEPT = 1_000

/** A turn, as `TurnInstructions` keys it: the user message it answers. */
type Turn = { sessionID: string; userID: string; directory: string; agent: string; abort: AbortSignal }

/** The runtime's instructions for a turn: its texts, with each source's strings in its place. */
export type TurnInstructions = (turn: Turn) => Promise<readonly string[]>

/**
 * Resolves `RuntimeOptions.instructions` once per turn. Without sources the texts are returned as
 * they are; with sources, what they answered is kept per user message, so every step of a turn
 * sends the same system prompt. A source that fails fails that step and is asked again next time.
 */
export function createTurnInstructions(given: readonly (string | InstructionSource)[]): TurnInstructions {
  const texts = given.filter((entry): entry is string => typeof entry === "string")
  if (texts.length === given.length) return async () => texts
  const kept = createLru<string, Promise<readonly string[]>>(TURNS_KEPT)
  return (turn) => {
    const key = `${turn.sessionID}\u0000${turn.userID}\u0000${turn.agent}`
    const known = kept.get(key)
    if (known) return known
    const resolving = resolve(given, turn)
    kept.set(key, resolving)
    resolving.catch(() => kept.delete(key))
    return resolving
  }
}

async function resolve(
  given: readonly (string | InstructionSource)[],
  turn: Turn,
): Promise<readonly string[]> {
  const input = {
    sessionID: turn.sessionID,
    directory: turn.directory,
    agent: turn.agent,
    signal: turn.abort,
  }
  const answers = await abortable(
    Promise.all(given.map((entry) => (typeof entry === "string" ? [entry] : entry(input)))),
    turn.abort,
  )
  return answers.flat()
}
