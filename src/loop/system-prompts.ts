import { formatDate, type SystemPromptInput, systemPrompt } from "../agent/system.js"

/**
 * The joined system prompt of the steps of a runtime, kept while what it is built from stays the
 * same. `systemPrompt` reads only the agent's prompt, the environment's fields (the date to the
 * day), the instructions and the user's system text, so equal values give the same text: the
 * steps of a run build it once, and again when the day changes. The caller builds it anew
 * whenever a `chat.system` hook may change the blocks. One prompt is kept: the steps of most
 * runs share it.
 */
export function createSystemPrompts() {
  let last: { key: unknown[]; system: string } | undefined
  return (input: SystemPromptInput): string => {
    const key = keyOf(input)
    if (last && same(key, last.key)) return last.system
    const system = systemPrompt(input).join("\n\n")
    last = { key, system }
    return system
  }
}

export type SystemPrompts = ReturnType<typeof createSystemPrompts>

function keyOf(input: SystemPromptInput): unknown[] {
  const { environment } = input
  return [
    input.agent.prompt,
    environment === undefined,
    environment?.directory,
    environment?.git,
    environment?.platform,
    environment?.date === undefined ? undefined : formatDate(environment.date),
    input.user,
    input.instructions === undefined,
    ...(input.instructions ?? []),
  ]
}

function same(key: readonly unknown[], kept: readonly unknown[]): boolean {
  return key.length === kept.length && key.every((value, index) => value === kept[index])
}
