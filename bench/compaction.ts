import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { selectPrune } from "../src/compaction/prune.js"
import { createGenerator } from "../src/id/identifier.js"
import { HISTORY_PAGE, loadHistory } from "../src/loop/run.js"
import { filterCompacted } from "../src/message/filter-compacted.js"
import type { WithParts } from "../src/message/info.js"
import type { Part } from "../src/message/part.js"
import { toModelMessages } from "../src/message/to-model-messages.js"
import type { Storage } from "../src/storage/port.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { createBuilders } from "../src/testing/builders.js"
import { BENCH_MODEL as MODEL, median, printTable } from "./report.js"

/** Rounds measured after one warm-up round; BENCH_RUNS overrides it. */
const RUNS = Number(process.env.BENCH_RUNS ?? 9)
const TOOLS_PER_TURN = 4
const TAIL_TURNS = 2
const PRUNE_TARGET_MS = 50

/**
 * A session of `turns` turns: each a user question and one assistant message with text and four
 * completed tool calls (outputs of 1,500, 800, 300 and 600 characters), as a coding agent writes them.
 */
function buildSession(turns: number): WithParts[] {
  const ids = createGenerator(() => 1_700_000_000_000)
  const sessionID = ids.descending("session")
  const messages: WithParts[] = []
  const sizes = [1_500, 800, 300, 600]
  for (let turn = 0; turn < turns; turn++) {
    const userID = ids.ascending("message")
    messages.push({
      info: {
        id: userID,
        sessionID,
        role: "user",
        time: { created: turn },
        agent: "build",
        model: { providerID: "bench", modelID: "bench-model" },
      },
      parts: [
        { id: ids.ascending("part"), sessionID, messageID: userID, type: "text", text: `Question ${turn}` },
      ],
    })
    const id = ids.ascending("message")
    const part = () => ({ id: ids.ascending("part"), sessionID, messageID: id })
    const parts: Part[] = [{ ...part(), type: "step-start" }]
    parts.push({ ...part(), type: "text", text: `Working on question ${turn}. `.repeat(10) })
    for (let tool = 0; tool < TOOLS_PER_TURN; tool++)
      parts.push({
        ...part(),
        type: "tool",
        tool: tool % 2 === 0 ? "read" : "bash",
        callID: `call_${turn}_${tool}`,
        state: {
          status: "completed",
          input: { path: `src/file-${turn}-${tool}.ts` },
          output: "x".repeat(sizes[tool]!),
          title: `file-${turn}-${tool}.ts`,
          metadata: {},
          time: { start: turn, end: turn + 1 },
        },
      })
    messages.push({
      info: {
        id,
        sessionID,
        role: "assistant",
        time: { created: turn, completed: turn + 1 },
        parentID: userID,
        agent: "build",
        providerID: "bench",
        modelID: "bench-model",
        path: { cwd: "/bench", root: "/bench" },
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        finish: "tool-calls",
      },
      parts,
    })
  }
  return messages
}

/** The session after a compaction that kept the last TAIL_TURNS turns: request and summary appended. */
function compacted(session: WithParts[]): WithParts[] {
  const ids = createGenerator(() => 1_800_000_000_000)
  const first = session[0]!.info
  const tailStartID = session[session.length - TAIL_TURNS * 2]!.info.id
  const requestID = ids.ascending("message")
  const summaryID = ids.ascending("message")
  const { sessionID } = first
  return [
    ...session,
    {
      info: { ...(first as WithParts["info"] & { role: "user" }), id: requestID, time: { created: 0 } },
      parts: [
        {
          id: ids.ascending("part"),
          sessionID,
          messageID: requestID,
          type: "compaction",
          auto: true,
          tailStartID,
        },
      ],
    },
    {
      info: {
        ...(session[1]!.info as WithParts["info"] & { role: "assistant" }),
        id: summaryID,
        parentID: requestID,
        agent: "compaction",
        summary: true,
        finish: "stop",
      },
      parts: [
        {
          id: ids.ascending("part"),
          sessionID,
          messageID: summaryID,
          type: "text",
          text: "## Goal\n".repeat(200),
        },
      ],
    },
  ]
}

async function time(run: () => unknown): Promise<number> {
  await run()
  const samples: number[] = []
  for (let round = 0; round < RUNS; round++) {
    const started = performance.now()
    await run()
    samples.push(performance.now() - started)
  }
  return median(samples)
}

/** Stores `messages` as one session, one write per message with its parts. */
async function fill(storage: Storage, messages: WithParts[]) {
  const sessionID = messages[0]!.info.sessionID
  await storage.write([{ type: "session.put", info: createBuilders().session({ id: sessionID }) }])
  for (const { info, parts } of messages)
    await storage.write([
      { type: "message.put", info },
      ...parts.map((part) => ({ type: "part.put" as const, part })),
    ])
}

/** How long a run takes to read its history from SQLite, before and after a compaction. */
async function loadTimes(turns: number): Promise<string[]> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-compaction-"))
  try {
    const session = buildSession(turns)
    const sessionID = session[0]!.info.sessionID
    const plain = new SqliteStorage(path.join(directory, "plain.sqlite"))
    const compactedStore = new SqliteStorage(path.join(directory, "compacted.sqlite"))
    await fill(plain, session)
    await fill(compactedStore, compacted(session))
    const full = await time(() => loadHistory(plain, sessionID))
    const fromCompaction = await time(() => loadHistory(compactedStore, sessionID))
    await plain.close()
    await compactedStore.close()
    return [
      turns.toLocaleString("en-US"),
      (session.length + 2).toLocaleString("en-US"),
      format(full),
      format(fromCompaction),
      `${(full / fromCompaction).toFixed(0)}x`,
    ]
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

const format = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0))

export async function runCompactionBench() {
  const rows: string[][] = []
  for (const turns of [1_000, 5_000]) {
    const session = buildSession(turns)
    const after = compacted(session)
    const retained = filterCompacted(after)
    const before = await time(() => toModelMessages(filterCompacted(session), MODEL))
    const afterMs = await time(() => toModelMessages(filterCompacted(after), MODEL))
    // Baseline: converting only the messages a compaction retains, with no session around them.
    const baseline = await time(() => toModelMessages(retained, MODEL))
    const filterOnly = await time(() => filterCompacted(after))
    const prune = await time(() => selectPrune(session))
    const parts = session.reduce(
      (sum, message) => sum + message.parts.filter((part) => part.type === "tool").length,
      0,
    )
    rows.push([
      turns.toLocaleString("en-US"),
      parts.toLocaleString("en-US"),
      format(before),
      format(afterMs),
      format(baseline),
      `${(afterMs / baseline).toFixed(2)}x`,
      format(filterOnly),
      format(prune),
    ])
  }
  console.log(
    `\nCompaction: context build (filterCompacted + toModelMessages) and prune selection, median of ${RUNS} rounds, ms`,
  )
  printTable(
    [
      "turns",
      "tool parts",
      "build, uncompacted",
      "build, compacted",
      "retained only",
      "compacted / retained",
      "filterCompacted",
      "prune selection",
    ],
    rows,
  )
  console.log(
    `Targets: prune selection under ${PRUNE_TARGET_MS} ms; a compacted build close to 1x of retained only.`,
  )

  console.log(
    `\nCompaction: reading a run's history from SQLite (a file, WAL), median of ${RUNS} rounds, ms. Uncompacted: the newest ${HISTORY_PAGE} messages, then all; compacted: the newest ${HISTORY_PAGE} only`,
  )
  printTable(["turns", "messages", "load, uncompacted", "load, compacted", "saved"], [await loadTimes(5_000)])
}
