import { createGenerator, type Generator } from "../id/identifier.js"
import type { Assistant, User } from "../message/info.js"
import type { FilePart, Part, Tokens } from "../message/part.js"
import type { SessionInfo } from "../schema/session.js"

/**
 * Builders of valid rows with every required field filled in, for tests of storage adapters,
 * processors and custom loops. Each takes overrides; IDs come from `ids`, a monotonic generator.
 */
export function createBuilders(ids: Generator = createGenerator()) {
  return {
    ids,
    session: (overrides: Partial<SessionInfo> = {}): SessionInfo => session(ids, overrides),
    user: (sessionID: string, overrides: Partial<User> = {}): User => user(ids, sessionID, overrides),
    assistant: (sessionID: string, parentID: string, overrides: Partial<Assistant> = {}): Assistant =>
      assistant(ids, sessionID, parentID, overrides),
    text: (sessionID: string, messageID: string, body = "hello"): Part => ({
      id: ids.ascending("part"),
      sessionID,
      messageID,
      type: "text",
      text: body,
    }),
    /** One part of every type and every tool state, with all optional fields set. */
    everyPart: (sessionID: string, messageID: string): Part[] => everyPart(ids, sessionID, messageID),
  }
}

/**
 * What `createBuilders` returns: `session`, `user`, `assistant`, `text` and `everyPart` (one part
 * of each type), and `ids`, the generator they draw IDs from. `storageConformance` hands one to
 * each case.
 */
export type Builders = ReturnType<typeof createBuilders>

function zeroTokens(): Tokens {
  return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
}

function session(ids: Generator, overrides: Partial<SessionInfo>): SessionInfo {
  const now = Date.now()
  return {
    id: ids.descending("session"),
    slug: "test-session",
    directory: "/tmp/project",
    title: "Test session",
    version: "0.0.0",
    time: { created: now, updated: now },
    cost: 0,
    tokens: zeroTokens(),
    ...overrides,
  }
}

function user(ids: Generator, sessionID: string, overrides: Partial<User>): User {
  return {
    id: ids.ascending("message"),
    sessionID,
    role: "user",
    time: { created: Date.now() },
    agent: "build",
    model: { providerID: "test", modelID: "test-model" },
    ...overrides,
  }
}

function assistant(
  ids: Generator,
  sessionID: string,
  parentID: string,
  overrides: Partial<Assistant>,
): Assistant {
  return {
    id: ids.ascending("message"),
    sessionID,
    role: "assistant",
    time: { created: Date.now() },
    parentID,
    agent: "build",
    providerID: "test",
    modelID: "test-model",
    path: { cwd: "/tmp/project", root: "/tmp/project" },
    cost: 0,
    tokens: zeroTokens(),
    ...overrides,
  }
}

/** What the parts of one `everyPart` call share: `base` gives each a fresh ID, in the order they are made. */
type NewParts = {
  base: () => { id: string; sessionID: string; messageID: string }
  range: { value: string; start: number; end: number }
}

/** One part of every type and every tool state, with all optional fields set. */
function everyPart(ids: Generator, sessionID: string, messageID: string): Part[] {
  const parts: NewParts = {
    base: () => ({ id: ids.ascending("part"), sessionID, messageID }),
    range: { value: "@src/a.ts", start: 0, end: 9 },
  }
  return [...contentParts(parts), ...toolParts(parts), ...stepParts(parts, messageID)]
}

function filePart({ base, range }: NewParts): FilePart {
  return {
    ...base(),
    type: "file",
    mime: "text/plain",
    url: "file:///tmp/project/src/a.ts",
    filename: "a.ts",
    source: { type: "file", path: "src/a.ts", text: range },
  }
}

/** Text, reasoning, and a file part of each source. */
function contentParts(parts: NewParts): Part[] {
  const { base, range } = parts
  return [
    {
      ...base(),
      type: "text",
      text: "hi",
      synthetic: true,
      ignored: false,
      time: { start: 1, end: 2 },
      metadata: { k: 1 },
    },
    {
      ...base(),
      type: "reasoning",
      text: "thinking",
      time: { start: 1, end: 2 },
      metadata: { anthropic: { signature: "s" } },
    },
    filePart(parts),
    {
      ...base(),
      type: "file",
      mime: "text/plain",
      url: "file:///x",
      source: {
        type: "symbol",
        path: "src/a.ts",
        name: "main",
        kind: 12,
        range: { start: { line: 1, character: 0 }, end: { line: 3, character: 1 } },
        text: range,
      },
    },
    {
      ...base(),
      type: "file",
      mime: "text/plain",
      url: "mcp://x",
      source: { type: "resource", clientName: "docs", uri: "docs://a", text: range },
    },
  ]
}

/** A tool part in each state. */
function toolParts(parts: NewParts): Part[] {
  const { base } = parts
  return [
    {
      ...base(),
      type: "tool",
      callID: "call_1",
      tool: "bash",
      state: { status: "pending", input: {}, raw: '{"com' },
    },
    {
      ...base(),
      type: "tool",
      callID: "call_2",
      tool: "bash",
      state: {
        status: "running",
        input: { command: "ls" },
        title: "ls",
        metadata: { pid: 1 },
        time: { start: 5 },
      },
    },
    {
      ...base(),
      type: "tool",
      callID: "call_3",
      tool: "read",
      state: {
        status: "completed",
        input: { path: "a.ts" },
        output: "contents",
        title: "a.ts",
        metadata: { lines: 1 },
        attachments: [filePart(parts)],
        time: { start: 5, end: 6, compacted: 7 },
      },
      metadata: { providerExecuted: false },
    },
    {
      ...base(),
      type: "tool",
      callID: "call_4",
      tool: "bash",
      state: {
        status: "error",
        input: {},
        error: "boom",
        metadata: { interrupted: true },
        time: { start: 5, end: 6 },
      },
    },
  ]
}

/** Step, snapshot, patch, agent, subtask, retry and compaction parts. */
function stepParts({ base }: NewParts, messageID: string): Part[] {
  const tokens = { input: 10, output: 20, reasoning: 5, cache: { read: 3, write: 2 } }
  return [
    { ...base(), type: "step-start", snapshot: "abc123" },
    { ...base(), type: "step-finish", reason: "tool-calls", snapshot: "def456", cost: 0.0123, tokens },
    { ...base(), type: "snapshot", snapshot: "abc123" },
    { ...base(), type: "patch", hash: "abc123", files: ["/tmp/project/src/a.ts"] },
    { ...base(), type: "agent", name: "explore", source: { value: "@explore", start: 0, end: 8 } },
    {
      ...base(),
      type: "subtask",
      prompt: "look around",
      description: "explore",
      agent: "explore",
      model: { providerID: "test", modelID: "small" },
    },
    {
      ...base(),
      type: "retry",
      attempt: 2,
      error: {
        name: "APIError",
        data: {
          message: "overloaded",
          statusCode: 529,
          isRetryable: true,
          responseHeaders: { "retry-after": "1" },
        },
      },
      time: { created: 9 },
    },
    { ...base(), type: "compaction", auto: true, overflow: true, tailStartID: messageID },
  ]
}
