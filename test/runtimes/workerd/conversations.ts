// DurableObjectSqliteStorage in real Durable Objects (conversation-worker.ts): a conversation
// streamed and stored in its object, read back after workerd restarted on the same disk, apart
// from another conversation's object; and the storage conformance suite, a case per object.
import { deepStrictEqual } from "node:assert/strict"
import { chatChunks } from "./chat-stream.js"
import { type Compatibility, startWorkerd } from "./workerd.js"

type Check = (name: string, failure: string | undefined) => void
type Stored = { role: string; text: string }[]
type CaseResult = { name: string; error?: string }

const OBJECTS = [
  { className: "Conversation", binding: "CONVERSATIONS" },
  { className: "Conformance", binding: "CONFORMANCE" },
]

export async function checkConversations(options: {
  binary: string
  directory: string
  module: string
  compatibility: Compatibility
  check: Check
}): Promise<void> {
  const { check } = options
  const start = () => startWorkerd({ ...options, durableObjects: OBJECTS })
  const first = await start()
  try {
    const chunks = await chatChunks(`${first.url}/conversation/a/chat`, "Remember this.")
    const texts = chunks.filter((chunk) => chunk.type === "text-delta").map((chunk) => chunk.delta)
    check(
      "a conversation in its Durable Object streams its turn through chatHandler",
      failure(() => deepStrictEqual([texts.join(""), chunks.at(-2)?.type], ["Noted.", "finish"])),
    )
    const results = await json<CaseResult[]>(`${first.url}/conformance`)
    const failed = results.filter((result) => result.error !== undefined)
    check(
      `storageConformance passes on DurableObjectSqliteStorage, each case in an object (${results.length} cases)`,
      results.length > 0 && failed.length === 0
        ? undefined
        : failed.map((result) => `${result.name}:\n${result.error}`).join("\n\n") || "no cases ran",
    )
  } finally {
    await first.stop()
  }
  const second = await start()
  try {
    const stored = await json<Stored>(`${second.url}/conversation/a/messages`)
    check(
      "after workerd restarted, the conversation reads back from its object's SQLite",
      failure(() =>
        deepStrictEqual(stored, [
          { role: "user", text: "Remember this." },
          { role: "assistant", text: "Noted." },
        ]),
      ),
    )
    const other = await json<Stored>(`${second.url}/conversation/b/messages`)
    check(
      "another conversation's object holds none of it",
      failure(() => deepStrictEqual(other, [])),
    )
  } finally {
    await second.stop()
  }
}

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(120_000) })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

function failure(assert: () => void): string | undefined {
  try {
    assert()
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
