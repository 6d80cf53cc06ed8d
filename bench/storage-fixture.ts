import type { Generator } from "../src/id/identifier.js"
import type { MessageInfo } from "../src/message/info.js"
import type { Part } from "../src/message/part.js"
import type { SessionInfo } from "../src/schema/session.js"
import type { StorageWrite } from "../src/storage/port.js"

export const MESSAGES = 2_000
export const PARTS_PER_MESSAGE = 10
export const ROWS = MESSAGES * (1 + PARTS_PER_MESSAGE)

/** One long session: 2,000 messages of 10 parts each, about 14 MiB of JSON. */
export type Fixture = { session: SessionInfo; messages: { info: MessageInfo; parts: Part[] }[] }

const LOREM =
  "The agent reads the repository, runs the failing test, and traces the error to a missing null check " +
  "in the session loader. It proposes a patch that guards the lookup, adds a regression test, and explains " +
  "why the earlier fix only hid the symptom. The user asks for a smaller diff; the agent trims the change. "

/** Deterministic text of about `length` characters, varied by `seed` so rows differ. */
function text(seed: number, length: number): string {
  const start = (seed * 37) % LOREM.length
  return (LOREM.slice(start) + LOREM.repeat(Math.ceil(length / LOREM.length) + 1)).slice(0, length)
}

/** One session of alternating user and assistant turns, shaped like a long coding session. */
export function buildFixture(ids: Generator): Fixture {
  const tokens = { input: 1200, output: 300, reasoning: 80, cache: { read: 900, write: 100 } }
  const session: SessionInfo = {
    id: ids.descending("session"),
    slug: "bench-session",
    directory: "/home/user/project",
    title: "Benchmark session",
    version: "0.1.0",
    time: { created: 1, updated: 2 },
    cost: 0,
    tokens,
  }
  const messages: Fixture["messages"] = []
  let lastUser = ""
  for (let index = 0; index < MESSAGES; index++) {
    const id = ids.ascending("message")
    const at = 1_700_000_000_000 + index * 1000
    const info: MessageInfo =
      index % 2 === 0
        ? {
            id,
            sessionID: session.id,
            role: "user",
            time: { created: at },
            agent: "build",
            model: { providerID: "anthropic", modelID: "claude" },
          }
        : {
            id,
            sessionID: session.id,
            role: "assistant",
            time: { created: at, completed: at + 900 },
            parentID: lastUser,
            agent: "build",
            providerID: "anthropic",
            modelID: "claude",
            path: { cwd: "/home/user/project", root: "/home/user/project" },
            cost: 0.0042,
            tokens,
            finish: "tool-calls",
          }
    if (info.role === "user") lastUser = id
    const base = () => ({ id: ids.ascending("part"), sessionID: session.id, messageID: id })
    const tool = (n: number, output: string): Part => ({
      ...base(),
      type: "tool",
      callID: `call_${index}_${n}`,
      tool: n % 2 === 0 ? "read" : "bash",
      state: {
        status: "completed",
        input:
          n % 2 === 0
            ? { filePath: `/home/user/project/src/module-${n}.ts` }
            : { command: "npm test -- --run" },
        output,
        title: `step ${n}`,
        metadata: { truncated: false, exit: 0 },
        time: { start: at + n, end: at + n + 50 },
      },
    })
    const parts: Part[] = [
      { ...base(), type: "step-start", snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" },
      { ...base(), type: "reasoning", text: text(index, 300), time: { start: at, end: at + 20 } },
      { ...base(), type: "text", text: text(index + 1, 400), time: { start: at + 20, end: at + 40 } },
      tool(1, text(index + 2, 1500)),
      tool(2, text(index + 3, 800)),
      tool(3, text(index + 4, 300)),
      { ...base(), type: "text", text: text(index + 5, 200), time: { start: at + 60, end: at + 70 } },
      tool(4, text(index + 6, 600)),
      {
        ...base(),
        type: "patch",
        hash: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        files: ["/home/user/project/src/a.ts"],
      },
      { ...base(), type: "step-finish", reason: "tool-calls", cost: 0.0042, tokens },
    ]
    messages.push({ info, parts })
  }
  return { session, messages }
}

/** How the storage bench writes the fixture: how many rows go into each `write()`. */
export type WriteMode = "row" | "message" | "bulk"

/** Messages per write in the bulk mode (with their parts: 1,100 rows). */
const BULK_MESSAGES = 100

/**
 * The fixture as the batches of a write mode, the session first: one write per row (as a live
 * agent persists them), one per message with its parts (a step's worth), or 1,100 rows per
 * write (an import).
 */
export function batches(fixture: Fixture, mode: WriteMode): StorageWrite[][] {
  const rows = (messages: Fixture["messages"]): StorageWrite[] =>
    messages.flatMap((message) => [
      { type: "message.put" as const, info: message.info },
      ...message.parts.map((part) => ({ type: "part.put" as const, part })),
    ])
  const session: StorageWrite[] = [{ type: "session.put", info: fixture.session }]
  switch (mode) {
    case "row":
      return [session, ...rows(fixture.messages).map((write) => [write])]
    case "message":
      return [session, ...fixture.messages.map((message) => rows([message]))]
    case "bulk": {
      const out = [session]
      for (let index = 0; index < fixture.messages.length; index += BULK_MESSAGES)
        out.push(rows(fixture.messages.slice(index, index + BULK_MESSAGES)))
      return out
    }
  }
}
