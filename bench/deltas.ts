/**
 * Per delta over HTTP: one model call whose reply is one text of DELTAS deltas, streamed by the mock
 * LLM server (bench/llm-server.ts, a child process) and parsed by `@ai-sdk/openai-compatible`. What
 * each consumer adds per delta on top of a real provider's SSE parsing and chunk validation:
 * `streamText`'s fullStream iterated, the model's own stream read with a reader, and
 * `SessionProcessor` turning it into stored parts on memory storage.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { LanguageModelV3Prompt } from "@ai-sdk/provider"
import { streamText } from "ai"
import { MemoryStorage } from "../src/storage/memory.js"
import { type LLMServer, MODEL_ID, SCRIPT_HEADER, spawnLLMServer } from "./llm-server.js"
import { processorTurn, startClock, type Time } from "./processor.js"
import { median, printTable } from "./report.js"

const DELTAS = Number(process.env.BENCH_DELTAS ?? 20_000)
/** Rounds measured after the warm-up; BENCH_RUNS overrides it. */
const RUNS = Number(process.env.BENCH_RUNS ?? 7)

/** A fresh provider per run, whose every call is answered with one text of DELTAS deltas. */
function model(server: LLMServer) {
  return createOpenAICompatible({
    name: "mock",
    baseURL: server.baseURL,
    includeUsage: true,
    headers: { [SCRIPT_HEADER]: `text:${DELTAS}` },
  }).chatModel(MODEL_ID)
}

const messages = [{ role: "user" as const, content: "Go." }]
const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "Go." }] }]

/** Baseline 1: `streamText`'s fullStream iterated, doing nothing with the parts. */
async function viaStreamText(server: LLMServer): Promise<Time> {
  const language = model(server)
  const clock = startClock()
  let deltas = 0
  for await (const part of streamText({ model: language, messages }).fullStream)
    if (part.type === "text-delta") deltas++
    else if (part.type === "error") throw part.error
  const time = clock()
  if (deltas !== DELTAS) throw new Error(`streamText: ${deltas} deltas, expected ${DELTAS}`)
  return time
}

/** Baseline 2: `model.doStream(...).stream` read with a reader, doing nothing with the parts. */
async function viaDoStream(server: LLMServer): Promise<Time> {
  const language = model(server)
  const abort = new AbortController()
  const clock = startClock()
  const { stream } = await language.doStream({ prompt, abortSignal: abort.signal })
  const reader = stream.getReader()
  let deltas = 0
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (next.value.type === "text-delta") deltas++
    else if (next.value.type === "error") throw next.value.error
  }
  const time = clock()
  if (deltas !== DELTAS) throw new Error(`doStream: ${deltas} deltas, expected ${DELTAS}`)
  return time
}

type Variant = "streamText" | "direct" | "memory" | "noEvents"
const VARIANTS: Variant[] = ["streamText", "direct", "memory", "noEvents"]
const NAMES: Record<Variant, string> = {
  streamText: "streamText fullStream, no processing",
  direct: "doStream stream, plain reader, no processing",
  memory: "SessionProcessor, memory",
  noEvents: "SessionProcessor, memory, deltas not published",
}

/** Times of one variant, and their ratios to each baseline of the same round. */
type Series = {
  ms: number[]
  cpu: number[]
  ratios: number[]
  directRatios: number[]
  cpuRatios: number[]
  cpuDirectRatios: number[]
}

const ms = (value: number) => Math.round(value).toLocaleString("en-US")
const times = (value: number) => `${value.toFixed(2)}x`
const perDelta = (value: number) => ((value * 1000) / DELTAS).toFixed(1)

export async function runDeltasBench(): Promise<void> {
  console.log(
    `\nDeltas over HTTP: one model call streaming one text of ${DELTAS.toLocaleString("en-US")} deltas from ` +
      "the mock LLM server (a child process) through @ai-sdk/openai-compatible. " +
      `${RUNS} rounds after one warm-up; each round runs every variant once, a different one first, on a ` +
      "fresh provider (and runtime); ratios are taken within a round, against the streamText baseline and " +
      "the direct (doStream) baseline, and medians are reported. CPU is this process's only: the server's " +
      "is not counted\n",
  )
  const server = await spawnLLMServer()
  const series = (): Series => ({
    ms: [],
    cpu: [],
    ratios: [],
    directRatios: [],
    cpuRatios: [],
    cpuDirectRatios: [],
  })
  const results: Record<Variant, Series> = {
    streamText: series(),
    direct: series(),
    memory: series(),
    noEvents: series(),
  }
  let writes = 0
  const run: Record<Variant, () => Promise<Time>> = {
    streamText: () => viaStreamText(server),
    direct: () => viaDoStream(server),
    memory: async () => {
      const turn = await processorTurn(new MemoryStorage(), {
        language: model(server),
        tools: [],
        finish: "stop",
      })
      writes = turn.writes
      return turn
    },
    noEvents: () =>
      processorTurn(new MemoryStorage(), {
        language: model(server),
        tools: [],
        finish: "stop",
        variant: "no-delta-events",
      }),
  }
  try {
    for (let round = 0; round <= RUNS; round++) {
      const measured = {} as Record<Variant, Time>
      for (let offset = 0; offset < VARIANTS.length; offset++) {
        const variant = VARIANTS[(round + offset) % VARIANTS.length]!
        measured[variant] = await run[variant]()
      }
      if (round === 0) continue
      for (const variant of VARIANTS) {
        const time = measured[variant]
        const target = results[variant]
        target.ms.push(time.ms)
        target.cpu.push(time.cpu)
        target.ratios.push(time.ms / measured.streamText.ms)
        target.directRatios.push(time.ms / measured.direct.ms)
        target.cpuRatios.push(time.cpu / measured.streamText.cpu)
        target.cpuDirectRatios.push(time.cpu / measured.direct.cpu)
      }
    }
  } finally {
    await server.close()
  }

  printTable(
    [
      "variant",
      "wall ms",
      "µs/delta",
      "vs streamText",
      "vs direct",
      "CPU ms",
      "CPU µs/delta",
      "CPU vs streamText",
      "CPU vs direct",
    ],
    VARIANTS.map((variant) => {
      const target = results[variant]
      return [
        NAMES[variant],
        ms(median(target.ms)),
        perDelta(median(target.ms)),
        times(median(target.ratios)),
        times(median(target.directRatios)),
        ms(median(target.cpu)),
        perDelta(median(target.cpu)),
        times(median(target.cpuRatios)),
        times(median(target.cpuDirectRatios)),
      ]
    }),
  )
  const added = (variant: Variant, base: Variant, measure: "ms" | "cpu" = "ms") =>
    perDelta(median(results[variant][measure].map((value, index) => value - results[base][measure][index]!)))
  console.log(
    `\nAdded per delta (median of the rounds' differences, µs): SessionProcessor over streamText ` +
      `${added("memory", "streamText")}, over doStream ${added("memory", "direct")}; streamText over ` +
      `doStream ${added("streamText", "direct")}. CPU (steadier on a busy machine): SessionProcessor ` +
      `over doStream ${added("memory", "direct", "cpu")}, without the delta events ` +
      `${added("noEvents", "direct", "cpu")}. SessionProcessor writes per turn: ${writes}`,
  )
  const byRound = (values: number[]) =>
    `${values.map((value) => value.toFixed(2)).join(" ")}  (${times(Math.min(...values))} to ${times(Math.max(...values))})`
  const range = (values: number[]) => `${ms(Math.min(...values))} to ${ms(Math.max(...values))} ms`
  console.log("Wall ratios by round:")
  console.log(`  memory / streamText     ${byRound(results.memory.ratios)}`)
  console.log(`  memory / direct         ${byRound(results.memory.directRatios)}`)
  console.log(`  no events / direct      ${byRound(results.noEvents.directRatios)}`)
  console.log(`  streamText / direct     ${byRound(results.streamText.directRatios)}`)
  console.log(`Baselines: streamText ${range(results.streamText.ms)}, direct ${range(results.direct.ms)}\n`)
}
