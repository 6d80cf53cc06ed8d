/**
 * The provider prompt as `ai.prompt.messages` records it (the AI SDK's `stringifyForTelemetry`):
 * JSON, with file bytes written as base64.
 */
export function stringifyPrompt(prompt: unknown): string {
  if (!Array.isArray(prompt)) return JSON.stringify(prompt)
  return JSON.stringify(
    prompt.map((message: { content?: unknown }) =>
      Array.isArray(message.content) ? { ...message, content: message.content.map(withBase64Data) } : message,
    ),
  )
}

function withBase64Data(part: { type?: unknown; data?: unknown }): unknown {
  return part.type === "file" && part.data instanceof Uint8Array ? { ...part, data: base64(part.data) } : part
}

function base64(bytes: Uint8Array): string {
  let binary = ""
  // In chunks: spreading a large array into fromCharCode overflows the stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000))
  }
  return btoa(binary)
}

/**
 * What `ai.prompt` records when the caller does not say: `streamText` writes the call's own
 * `{ system, prompt, messages }`; from the provider prompt, the leading system messages stand for
 * `system` (its text when there is one) and the rest for `messages`.
 */
export function promptInput(prompt: unknown): unknown {
  if (!Array.isArray(prompt)) return { messages: prompt }
  let start = 0
  while (start < prompt.length && (prompt[start] as { role?: unknown }).role === "system") start++
  const systems = prompt.slice(0, start) as { content?: unknown }[]
  const system = systems.length === 0 ? undefined : systems.length === 1 ? systems[0]!.content : systems
  return { system, messages: prompt.slice(start) }
}
