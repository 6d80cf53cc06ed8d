import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { streamText } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { z } from "zod"
import { createBus } from "../src/bus/bus.js"
import type { Assistant } from "../src/message/info.js"
import { create as createProcessor, type ProcessorRuntime } from "../src/processor/processor.js"
import type { ModelInfo } from "../src/provider/model-info.js"
import { createRuntime } from "../src/runtime.js"
import { MemoryStorage } from "../src/storage/memory.js"
import type { Storage } from "../src/storage/port.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import type { StreamChunk } from "../src/testing/index.js"
import { toAITools } from "../src/tool/ai-tools.js"
import { type Context, define } from "../src/tool/tool.js"

const DELTAS = 100_000
const TOOL_CALLS = 100
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const TARGETS = { memory: 1.2, sqlite: 1.5 }

const MODEL: ModelInfo = {
  providerID: "bench",
  id: "bench-model",
  name: "Bench",
  limit: { context: 200_000, output: 32_000 },
  cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
  capabilities: { reasoning: false, toolcall: true, attachment: false, temperature: true },
}

const echo = define("echo", {
  description: "Returns its argument at once",
  parameters: z.object({ n: z.number() }),
  async execute({ n }) {
    return { title: `echo ${n}`, output: String(n), metadata: { n } }
  },
})

/**
 * One model turn: TOOL_CALLS rounds of a text part streamed in DELTAS / TOOL_CALLS deltas followed
 * by one tool call, then the finish. Built once; every run streams the same chunks.
 */
function buildChunks(): StreamChunk[] {
  const chunks: StreamChunk[] = [{ type: "stream-start", warnings: [] }]
  const perText = DELTAS / TOOL_CALLS
  for (let round = 0; round < TOOL_CALLS; round++) {
    const id = `text-${round}`
    chunks.push({ type: "text-start", id })
    for (let index = 0; index < perText; index++) chunks.push({ type: "text-delta", id, delta: "word " })
    chunks.push({ type: "text-end", id })
    const callID = `call-${round}`
    const input = JSON.stringify({ n: round })
    chunks.push({ type: "tool-input-start", id: callID, toolName: "echo" })
    chunks.push({ type: "tool-input-delta", id: callID, delta: input })
    chunks.push({ type: "tool-input-end", id: callID })
    chunks.push({ type: "tool-call", toolCallId: callID, toolName: "echo", input })
  }
  chunks.push({
    type: "finish",
    finishReason: { unified: "tool-calls", raw: "tool_use" },
    usage: {
      inputTokens: { total: 12_000, noCache: 2_000, cacheRead: 10_000, cacheWrite: 0 },
      outputTokens: { total: 100_000, text: 100_000, reasoning: 0 },
    },
  })
  return chunks
}

/**
 * A fresh model that streams `chunks` once, one per pull, as a provider's parser hands them on.
 * (Enqueuing all 100,000 up front would measure the web-streams queue instead: Node shifts it from
 * an array, which grows slower than linearly with its length.)
 */
function modelOf(chunks: StreamChunk[]) {
  let next = 0
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream<StreamChunk>({
        pull(controller) {
          const chunk = chunks[next++]
          if (chunk) controller.enqueue(chunk)
          else controller.close()
        },
      }),
    }),
  })
}

const messages = [{ role: "user" as const, content: "Go." }]

/** The floor: the same stream and tools through `streamText`, iterated with no processing. */
async function baseline(chunks: StreamChunk[]): Promise<number> {
  const context = (callID: string, abort: AbortSignal): Context => ({
    sessionID: "ses_bench",
    messageID: "msg_bench",
    callID,
    agent: "build",
    abort,
    metadata: async () => {},
    ask: async () => {},
  })
  const tools = toAITools([echo], context)
  const model = modelOf(chunks)
  const started = performance.now()
  let parts = 0
  for await (const _part of streamText({ model, messages, tools }).fullStream) parts++
  const elapsed = performance.now() - started
  if (parts < DELTAS) throw new Error(`baseline streamed only ${parts} parts`)
  return elapsed
}

type Variant = "real" | "no-delta-events" | "unvalidated-delta-events"
type TurnResult = { ms: number; writes: number; rows: number }

/**
 * One turn through SessionProcessor on `storage`. The variants take delta publishing apart:
 * "real" is the runtime as shipped; "no-delta-events" stubs `updatePartDelta` out; and
 * "unvalidated-delta-events" publishes each delta on a bus without the zod check of its input.
 */
async function processorTurn(chunks: StreamChunk[], storage: Storage, variant: Variant = "real"): Promise<TurnResult> {
  let writes = 0
  let rows = 0
  const write = storage.write.bind(storage)
  storage.write = (batch) => {
    writes++
    rows += batch.length
    return write(batch)
  }
  const runtime = createRuntime({ storage })
  try {
    const session = await runtime.session.create()
    const userID = await runtime.session.newMessageID(session.id)
    await runtime.session.updateMessage({
      id: userID,
      sessionID: session.id,
      role: "user",
      time: { created: Date.now() },
      agent: "build",
      model: { providerID: MODEL.providerID, modelID: MODEL.id },
    })
    const assistant: Assistant = {
      id: await runtime.session.newMessageID(session.id),
      sessionID: session.id,
      role: "assistant",
      time: { created: Date.now() },
      parentID: userID,
      agent: "build",
      providerID: MODEL.providerID,
      modelID: MODEL.id,
      path: { cwd: "/bench", root: "/bench" },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    }
    await runtime.session.updateMessage(assistant)
    const processorRuntime = runtimeFor(runtime, variant)
    const processor = createProcessor({
      runtime: processorRuntime,
      assistantMessage: assistant,
      model: { language: modelOf(chunks), info: MODEL },
      abort: new AbortController().signal,
    })
    writes = 0
    rows = 0
    const started = performance.now()
    const result = await processor.process({ messages, tools: [echo] })
    const ms = performance.now() - started
    const message = processor.message()
    if (result !== "continue" || message.error || message.finish !== "tool-calls")
      throw new Error(`processor turn ended with ${result} ${JSON.stringify(message.error)}`)
    return { ms, writes, rows }
  } finally {
    await runtime.close()
  }
}

function runtimeFor(runtime: ReturnType<typeof createRuntime>, variant: Variant): ProcessorRuntime {
  if (variant === "real") return runtime
  const bus = createBus()
  const updatePartDelta: ProcessorRuntime["session"]["updatePartDelta"] =
    variant === "no-delta-events" ? () => {} : (input) => bus.publish("message.part.delta", input)
  return { session: { ...runtime.session, updatePartDelta }, permission: runtime.permission }
}

async function withSqlite<T>(directory: string, run: number, use: (storage: Storage) => Promise<T>): Promise<T> {
  const file = path.join(directory, `turn-${run}-${Math.random().toString(36).slice(2)}.sqlite`)
  return use(new SqliteStorage(file))
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function printTable(header: string[], rows: string[][]) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  )
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padStart(widths[column]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`|${widths.map((width) => `${"-".repeat(width + 1)}:`).join("|")}|`)
  for (const row of rows) console.log(line(row))
}

const ms = (value: number) => value.toFixed(0)
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`

export async function runProcessorBench(): Promise<void> {
  const chunks = buildChunks()
  console.log(
    `Processor: one turn of ${DELTAS.toLocaleString("en-US")} text deltas in ${TOOL_CALLS} text parts and ` +
      `${TOOL_CALLS} tool calls (${chunks.length.toLocaleString("en-US")} model chunks); ` +
      `median of ${RUNS} runs after one warm-up, variants interleaved\n`,
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  const times = {
    baseline: [] as number[],
    memory: [] as number[],
    sqlite: [] as number[],
    memoryNoEvents: [] as number[],
    memoryUnvalidated: [] as number[],
    sqliteNoEvents: [] as number[],
  }
  let memoryWrites: TurnResult | undefined
  let sqliteWrites: TurnResult | undefined
  try {
    for (let run = 0; run <= RUNS; run++) {
      const warmUp = run === 0
      const record = (list: number[], value: number) => {
        if (!warmUp) list.push(value)
      }
      record(times.baseline, await baseline(chunks))
      const memory = await processorTurn(chunks, new MemoryStorage())
      record(times.memory, memory.ms)
      const sqlite = await withSqlite(directory, run, (storage) => processorTurn(chunks, storage))
      record(times.sqlite, sqlite.ms)
      record(times.memoryNoEvents, (await processorTurn(chunks, new MemoryStorage(), "no-delta-events")).ms)
      record(
        times.memoryUnvalidated,
        (await processorTurn(chunks, new MemoryStorage(), "unvalidated-delta-events")).ms,
      )
      record(
        times.sqliteNoEvents,
        (await withSqlite(directory, run, (storage) => processorTurn(chunks, storage, "no-delta-events"))).ms,
      )
      memoryWrites = memory
      sqliteWrites = sqlite
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }

  const base = median(times.baseline)
  const memory = median(times.memory)
  const sqlite = median(times.sqlite)
  printTable(
    ["variant", "ms (median)", "vs baseline", "target", "writes/turn", "rows/turn"],
    [
      ["streamText fullStream, no processing", ms(base), "1.00x", "", "", ""],
      [
        "SessionProcessor, memory",
        ms(memory),
        ratio(memory, base),
        `<= ${TARGETS.memory}x`,
        String(memoryWrites!.writes),
        String(memoryWrites!.rows),
      ],
      [
        "SessionProcessor, sqlite (file, WAL)",
        ms(sqlite),
        ratio(sqlite, base),
        `<= ${TARGETS.sqlite}x`,
        String(sqliteWrites!.writes),
        String(sqliteWrites!.rows),
      ],
    ],
  )
  const verdict = (value: number, target: number) => (value / base <= target ? "met" : "MISSED")
  console.log(
    `\nTargets: memory ${verdict(memory, TARGETS.memory)} (${ratio(memory, base)} <= ${TARGETS.memory}x), ` +
      `SQLite ${verdict(sqlite, TARGETS.sqlite)} (${ratio(sqlite, base)} <= ${TARGETS.sqlite}x)\n`,
  )

  console.log("Where the processor's time goes (same runs, median):")
  const noEvents = median(times.memoryNoEvents)
  const unvalidated = median(times.memoryUnvalidated)
  const sqliteNoEvents = median(times.sqliteNoEvents)
  printTable(
    ["variant", "ms", "vs baseline"],
    [
      ["memory, deltas published as shipped", ms(memory), ratio(memory, base)],
      ["memory, deltas published without zod check", ms(unvalidated), ratio(unvalidated, base)],
      ["memory, delta publishing stubbed out", ms(noEvents), ratio(noEvents, base)],
      ["sqlite, delta publishing stubbed out", ms(sqliteNoEvents), ratio(sqliteNoEvents, base)],
    ],
  )
  console.log("")
}
