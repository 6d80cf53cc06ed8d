import type { UIChunk } from "./checks.js"

/** Posts what useChat posts (one user message) to `url` and reads the UI message chunks back. */
export async function chatChunks(url: string, text: string): Promise<UIChunk[]> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "chat-1",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text }] }],
    }),
    signal: AbortSignal.timeout(30_000),
  })
  const body = await response.text()
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${body}`)
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? { type: "[DONE]" } : (JSON.parse(data) as UIChunk)))
}
