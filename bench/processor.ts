import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from "@ai-sdk/provider"
import { type LanguageModel, streamText } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { z } from "zod"
import { create as createProcessor, type ProcessorRuntime } from "../src/processor/processor.js"
import { createRuntime } from "../src/runtime/runtime.js"
import { type CheckedStorage, writeChecked } from "../src/storage/checked-write.js"
import { MemoryStorage } from "../src/storage/memory.js"
import type { Storage } from "../src/storage/port.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { createBuilders, type StreamChunk } from "../src/testing/index.js"
import { toAITools } from "../src/tool/ai-tools.js"
import { type Context, define, type ToolInfo } from "../src/tool/tool.js"
import { BENCH_MODEL as MODEL, median, printTable } from "./report.js"

const DELTAS = 100_000
const TOOL_CALLS = 100
/** Rounds measured after the warm-up; BENCH_RUNS overrides it. */
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const TARGETS = { memory: 1.2, sqlite: 1.5 }

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

/**
 * Wall-clock ms, and the CPU ms of the whole process (all threads) over the same span. The CPU
 * time is the steadier measure on a shared machine, where other work can take the CPU mid-run.
 */
export type Time = { ms: number; cpu: number }

export function startClock(): () => Time {
  const started = performance.now()
  const cpu = process.cpuUsage()
  return () => {
    const used = process.cpuUsage(cpu)
    return { ms: performance.now() - started, cpu: (used.user + used.system) / 1000 }
  }
}

const context = (callID: string, abort: AbortSignal): Context => ({
  sessionID: "ses_bench",
  messageID: "msg_bench",
  callID,
  agent: "build",
  abort,
  metadata: async () => {},
  ask: async () => {},
})

/** The AI SDK floor: the same stream and tools through `streamText`, iterated with no processing. */
async function baseline(chunks: StreamChunk[]): Promise<Time> {
  const tools = toAITools([echo], context)
  const model = modelOf(chunks)
  const clock = startClock()
  let parts = 0
  for await (const _part of streamText({ model, messages, tools }).fullStream) parts++
  const time = clock()
  if (parts < DELTAS) throw new Error(`baseline streamed only ${parts} parts`)
  return time
}

/** The same request as the provider spec takes it, for the direct baseline. */
const specPrompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "Go." }] }]
const specTools: LanguageModelV3FunctionTool[] = [
  {
    type: "function",
    name: echo.id,
    description: echo.description,
    inputSchema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
      additionalProperties: false,
    },
  },
]

/**
 * The floor below `streamText`: the model's own stream (`model.doStream(...).stream`), read with a
 * plain reader, doing nothing with the parts but run the tool calls: `JSON.parse` of the input and
 * the tool's `execute`, with no schema check and no truncation, awaited together at the end.
 */
async function directBaseline(chunks: StreamChunk[]): Promise<Time> {
  const model = modelOf(chunks)
  const abort = new AbortController()
  const clock = startClock()
  const { stream } = await model.doStream({ prompt: specPrompt, tools: specTools, abortSignal: abort.signal })
  const reader = stream.getReader()
  const running: Promise<unknown>[] = []
  let parts = 0
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts++
    const part = next.value
    if (part.type === "tool-call")
      running.push(echo.execute(JSON.parse(part.input), context(part.toolCallId, abort.signal)))
  }
  const results = await Promise.all(running)
  const time = clock()
  if (parts < DELTAS || results.length !== TOOL_CALLS)
    throw new Error(`direct baseline streamed only ${parts} parts and ${results.length} tool calls`)
  return time
}

type Variant = "shipped" | "no-delta-events"
export type TurnResult = Time & { writes: number; rows: number }

/** The model of a processor turn, its tools, and how the turn must finish. */
export type TurnOptions = {
  language: LanguageModel
  variant?: Variant
  tools?: ToolInfo[]
  finish?: "tool-calls" | "stop"
}

/**
 * One turn through SessionProcessor on `storage`, timing `process()` alone. "no-delta-events"
 * stubs `updatePartDelta` out, to show what publishing the deltas costs.
 */
export async function processorTurn(storage: Storage, options: TurnOptions): Promise<TurnResult> {
  const { language, variant = "shipped", tools = [echo], finish = "tool-calls" } = options
  let writes = 0
  let rows = 0
  const count = (batch: readonly unknown[]) => {
    writes++
    rows += batch.length
  }
  // Both paths are counted, so that the runtime's own batches keep the adapter's checked path
  // (replacing `write` alone would send them all through the plain one, see checkedWriteOf).
  const write = storage.write.bind(storage)
  storage.write = (batch) => {
    count(batch)
    return write(batch)
  }
  const checked = (storage as CheckedStorage)[writeChecked]?.bind(storage)
  if (checked)
    (storage as CheckedStorage)[writeChecked] = (batch) => {
      count(batch)
      return checked(batch)
    }
  const runtime = createRuntime({ storage })
  try {
    const session = await runtime.session.create()
    const build = createBuilders()
    const model = { providerID: MODEL.providerID, modelID: MODEL.id }
    const user = build.user(session.id, { id: await runtime.session.newMessageID(session.id), model })
    await runtime.session.updateMessage(user)
    const assistant = build.assistant(session.id, user.id, {
      id: await runtime.session.newMessageID(session.id),
      ...model,
    })
    await runtime.session.updateMessage(assistant)
    const processorRuntime: ProcessorRuntime =
      variant === "shipped"
        ? runtime
        : { session: { ...runtime.session, updatePartDelta: () => {} }, permission: runtime.permission }
    const processor = createProcessor({
      runtime: processorRuntime,
      assistantMessage: assistant,
      model: { language, info: MODEL },
      abort: new AbortController().signal,
    })
    writes = 0
    rows = 0
    const clock = startClock()
    const result = await processor.process({ messages, tools })
    const time = clock()
    const message = processor.message()
    if (result !== "continue" || message.error || message.finish !== finish)
      throw new Error(`processor turn ended with ${result} ${JSON.stringify(message.error)}`)
    return { ...time, writes, rows }
  } finally {
    await runtime.close()
  }
}

async function withSqlite<T>(
  directory: string,
  run: number,
  use: (storage: Storage) => Promise<T>,
): Promise<T> {
  const file = path.join(directory, `turn-${run}-${Math.random().toString(36).slice(2)}.sqlite`)
  return use(new SqliteStorage(file))
}

const ms = (value: number) => Math.round(value).toLocaleString("en-US")
const times = (value: number) => `${value.toFixed(2)}x`

/** Times of one variant, and their ratios to each baseline of the same round. */
type Series = {
  ms: number[]
  cpu: number[]
  ratios: number[]
  cpuRatios: number[]
  directRatios: number[]
  directCpuRatios: number[]
}

export async function runProcessorBench(): Promise<void> {
  const chunks = buildChunks()
  console.log(
    `\nProcessor: one turn of ${DELTAS.toLocaleString("en-US")} text deltas in ${TOOL_CALLS} text parts and ` +
      `${TOOL_CALLS} tool calls (${chunks.length.toLocaleString("en-US")} model chunks). ` +
      `${RUNS} rounds after one warm-up; each round runs every variant once, on a fresh model and runtime; ` +
      "ratios are taken within a round, against the streamText baseline and against the direct " +
      "(model.doStream) baseline, and medians are reported\n",
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  const series = (): Series => ({
    ms: [],
    cpu: [],
    ratios: [],
    cpuRatios: [],
    directRatios: [],
    directCpuRatios: [],
  })
  const results = {
    baseline: series(),
    direct: series(),
    memory: series(),
    sqlite: series(),
    memoryNoEvents: series(),
  }
  let memoryWrites: TurnResult | undefined
  let sqliteWrites: TurnResult | undefined
  try {
    for (let round = 0; round <= RUNS; round++) {
      const base = await baseline(chunks)
      const bare = await directBaseline(chunks)
      const memory = await processorTurn(new MemoryStorage(), { language: modelOf(chunks) })
      const sqlite = await withSqlite(directory, round, (storage) =>
        processorTurn(storage, { language: modelOf(chunks) }),
      )
      const noEvents = await processorTurn(new MemoryStorage(), {
        language: modelOf(chunks),
        variant: "no-delta-events",
      })
      memoryWrites = memory
      sqliteWrites = sqlite
      if (round === 0) continue
      const record = (target: Series, time: Time) => {
        target.ms.push(time.ms)
        target.cpu.push(time.cpu)
        target.ratios.push(time.ms / base.ms)
        target.cpuRatios.push(time.cpu / base.cpu)
        target.directRatios.push(time.ms / bare.ms)
        target.directCpuRatios.push(time.cpu / bare.cpu)
      }
      record(results.baseline, base)
      record(results.direct, bare)
      record(results.memory, memory)
      record(results.sqlite, sqlite)
      record(results.memoryNoEvents, noEvents)
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }

  const row = (name: string, target: Series, extra: string[]) => [
    name,
    ms(median(target.ms)),
    times(median(target.ratios)),
    times(median(target.directRatios)),
    ms(median(target.cpu)),
    times(median(target.cpuRatios)),
    times(median(target.directCpuRatios)),
    ...extra,
  ]
  printTable(
    [
      "variant",
      "wall ms",
      "vs streamText",
      "vs direct",
      "CPU ms",
      "vs streamText",
      "vs direct",
      "target",
      "writes/turn",
      "rows/turn",
    ],
    [
      row("streamText fullStream, no processing", results.baseline, ["", "", ""]),
      row("doStream stream, plain reader, no processing", results.direct, ["", "", ""]),
      row("SessionProcessor, memory", results.memory, [
        `<= ${TARGETS.memory}x`,
        String(memoryWrites!.writes),
        String(memoryWrites!.rows),
      ]),
      row("SessionProcessor, sqlite (file, WAL)", results.sqlite, [
        `<= ${TARGETS.sqlite}x`,
        String(sqliteWrites!.writes),
        String(sqliteWrites!.rows),
      ]),
      row("SessionProcessor, memory, deltas not published", results.memoryNoEvents, ["", "", ""]),
    ],
  )
  const verdict = (target: Series, limit: number) =>
    `${median(target.ratios) <= limit ? "met" : "MISSED"} (wall ${times(median(target.ratios))}, ` +
    `CPU ${times(median(target.cpuRatios))}, at most ${limit}x)`
  console.log(
    `\nTargets (against the streamText baseline): memory ${verdict(results.memory, TARGETS.memory)}; ` +
      `SQLite ${verdict(results.sqlite, TARGETS.sqlite)}`,
  )
  // Every round's ratio, in the order the rounds ran, then the spread.
  const byRound = (values: number[]) =>
    `${values.map((value) => value.toFixed(2)).join(" ")}  (${times(Math.min(...values))} to ${times(Math.max(...values))})`
  const range = (values: number[]) => `${ms(Math.min(...values))} to ${ms(Math.max(...values))} ms`
  console.log("Wall ratios by round:")
  console.log(`  memory / streamText  ${byRound(results.memory.ratios)}`)
  console.log(`  memory / direct      ${byRound(results.memory.directRatios)}`)
  console.log(`  sqlite / streamText  ${byRound(results.sqlite.ratios)}`)
  console.log(`  sqlite / direct      ${byRound(results.sqlite.directRatios)}`)
  console.log(`  direct / streamText  ${byRound(results.direct.ratios)}`)
  console.log(`Baselines: streamText ${range(results.baseline.ms)}, direct ${range(results.direct.ms)}\n`)
}
