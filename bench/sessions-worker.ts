// One variant of bench/sessions.ts in a process of its own, so that its peak RSS is its own:
// SESSIONS loops of STEPS tool steps each, all started at once, on one scripted model. Prints
// one JSON line (a `Measured`). Run with --expose-gc.
import fs from "node:fs"
import { Session } from "node:inspector/promises"
import v8 from "node:v8"
import type { LanguageModelV3 } from "@ai-sdk/provider"
import { z } from "zod"
import type { Runtime, Storage } from "../src/index.js"
import type { ScriptedModel } from "../src/testing/index.js"
import { TOOL_NAME } from "./llm-server.js"
import { directLoop, PROMPT, SYSTEM, specTools } from "./loop.js"
import { agentloop as agentloopPackage, sqlite, testing } from "./package.js"

const { MemoryStorage, Tool } = agentloopPackage
const { SqliteStorage } = sqlite
const { createTestRuntime, say, scriptedModel } = testing

/** A direct loop per session, or agentloop on MemoryStorage or SqliteStorage. */
export type Variant = "direct" | "memory" | "sqlite"

/** What a child reports: the timed run, its process's peak RSS, and the heap the finished sessions keep. */
export type Measured = {
  variant: Variant
  /** Model calls answered: STEPS tool steps and a final text per session. */
  calls: number
  /** Wall and CPU time of the run, from the first loop started to the last one finished. */
  ms: number
  cpuMs: number
  /** Bytes allocated on the JavaScript heap during the run (collected or not). */
  allocated: number
  /** Creating the sessions, before the run (agentloop only). */
  createMs: number
  /** The process's peak RSS (from its start), and its RSS just before the run, in bytes. */
  maxRss: number
  rssBefore: number
  /** heapUsed after GC with the finished sessions kept, minus heapUsed before them, per session. */
  idleBytes: number
}

const SESSIONS_WARM_UP = 20

/** A short result: the bench measures what a session costs, not the size of the history. */
const result = (n: number) => `record ${n}: found`

const lookup = Tool.define(TOOL_NAME, {
  description: specTools[0]!.description!,
  parameters: z.object({ n: z.number() }),
  async execute({ n }) {
    return { title: `record ${n}`, output: result(n), metadata: {} }
  },
})
const execute = { [TOOL_NAME]: async ({ n }: { n: number }) => result(n) }

/**
 * One scripted model for every session of a run: each call answers from its own prompt (a
 * `lookup` call per tool result so far, then a final text), so interleaved sessions each get
 * their own script. It keeps no calls: 11,000 retained prompts would be the largest thing alive.
 */
function sharedModel(steps: number): { model: ScriptedModel; calls: () => number } {
  let calls = 0
  const model: ScriptedModel = scriptedModel([], {
    fallback: (call) => {
      calls++
      model.doStreamCalls.length = 0
      const done = call.prompt.filter((message) => message.role === "tool").length
      return done >= steps
        ? [say.text("Done: every record is read.")]
        : [say.toolCall(TOOL_NAME, { n: done }, { id: `call_${done}` })]
    },
  })
  return { model, calls: () => calls }
}

const gc = () => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (!collect) throw new Error("bench/sessions-worker.ts runs with --expose-gc")
  collect()
  collect()
}

/** The run's timings and RSS before it, around `run`, and what `run` returned. */
type Timed = Pick<Measured, "ms" | "cpuMs" | "rssBefore" | "allocated">
async function timed(run: () => Promise<unknown>): Promise<Timed & { kept: unknown }> {
  const rssBefore = process.memoryUsage().rss
  const collections = new v8.GCProfiler()
  const heapBefore = v8.getHeapStatistics().used_heap_size
  collections.start()
  const wall = performance.now()
  const cpu = process.cpuUsage()
  const kept = await profiled(run)
  const used = process.cpuUsage(cpu)
  const ms = performance.now() - wall
  const { statistics } = collections.stop()
  // What the heap grew by, plus what each collection freed: a count that noise does not move.
  const freed = statistics.reduce(
    (sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize,
    0,
  )
  const allocated = v8.getHeapStatistics().used_heap_size - heapBefore + freed
  return { ms, cpuMs: (used.user + used.system) / 1000, rssBefore, allocated, kept }
}

/**
 * `run`, profiled when asked: BENCH_SESSIONS_PROFILE names a file for a CPU profile of the last
 * run (the measured one, after the warm-up's), BENCH_SESSIONS_HEAP_PROFILE one for a sampling
 * heap profile that counts collected objects too (all that was allocated, not only what survived).
 */
async function profiled<T>(run: () => Promise<T>): Promise<T> {
  const cpuFile = process.env.BENCH_SESSIONS_PROFILE
  const heapFile = process.env.BENCH_SESSIONS_HEAP_PROFILE
  if (heapFile)
    return underInspector(heapFile, run, async (inspector) => {
      await inspector.post("HeapProfiler.enable")
      await inspector.post("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      })
      return async () => (await inspector.post("HeapProfiler.stopSampling")).profile
    })
  if (cpuFile)
    return underInspector(cpuFile, run, async (inspector) => {
      await inspector.post("Profiler.enable")
      await inspector.post("Profiler.setSamplingInterval", { interval: 200 })
      await inspector.post("Profiler.start")
      return async () => (await inspector.post("Profiler.stop")).profile
    })
  return run()
}

/** `run` between `start` and the stop it returns, whose profile is written to `file`. */
async function underInspector<T>(
  file: string,
  run: () => Promise<T>,
  start: (inspector: Session) => Promise<() => Promise<unknown>>,
): Promise<T> {
  const inspector = new Session()
  inspector.connect()
  const stop = await start(inspector)
  try {
    return await run()
  } finally {
    fs.writeFileSync(file, JSON.stringify(await stop()))
    inspector.disconnect()
  }
}

/** Direct loops: each `directLoop` of bench/loop.ts, its history kept as an idle session would be. */
async function direct(sessions: number, steps: number): Promise<Omit<Measured, "variant" | "maxRss">> {
  const run = (count: number, model: LanguageModelV3) =>
    Promise.all(Array.from({ length: count }, () => directLoop(model, execute)))
  await run(SESSIONS_WARM_UP, sharedModel(steps).model as unknown as LanguageModelV3)
  const { model, calls } = sharedModel(steps)
  gc()
  const heapBefore = process.memoryUsage().heapUsed
  const { kept, ...times } = await timed(() => run(sessions, model as unknown as LanguageModelV3))
  gc()
  const idleBytes = (process.memoryUsage().heapUsed - heapBefore) / sessions
  // Read after the heap, so that the histories were alive when it was measured.
  for (const history of kept as unknown[][])
    if (history.length !== 3 + 2 * steps) throw new Error(`direct: a history of ${history.length} messages`)
  return { ...times, calls: calls(), createMs: 0, idleBytes }
}

function agentRuntime(storage: Storage, model: ScriptedModel, steps: number): Runtime {
  // The direct loops' system prompt, and no environment block: the same prompt, the same work.
  const options = {
    storage,
    model,
    tools: [lookup],
    titles: false,
    agents: { build: { steps: steps + 5, prompt: SYSTEM } },
    environment: "none" as const,
  }
  return createTestRuntime(options).runtime
}

/** `sessions` sessions created, then one prompt each, all at once; the IDs only are kept. */
async function prompts(runtime: Runtime, sessions: number): Promise<{ createMs: number; run: Timed }> {
  const started = performance.now()
  const created = await Promise.all(Array.from({ length: sessions }, () => runtime.session.create({})))
  const ids = created.map((session) => session.id)
  const createMs = performance.now() - started
  const run = await timed(async () => {
    const finished = await Promise.all(
      ids.map((sessionID) => runtime.session.prompt({ sessionID, parts: [{ type: "text", text: PROMPT }] })),
    )
    for (const { info } of finished)
      if (info.role !== "assistant" || info.finish !== "stop" || info.error)
        throw new Error(`agentloop ended with ${JSON.stringify(info)}`)
  })
  return { createMs, run }
}

/** agentloop: one runtime, its sessions created, then all prompted at once. */
async function agentloop(
  storage: () => Storage,
  sessions: number,
  steps: number,
): Promise<Omit<Measured, "variant" | "maxRss">> {
  // A runtime of its own warms the code up, so that the measured one starts with no sessions.
  const warm = agentRuntime(storage(), sharedModel(steps).model, steps)
  await prompts(warm, SESSIONS_WARM_UP)
  await warm.close()

  const { model, calls } = sharedModel(steps)
  const runtime = agentRuntime(storage(), model, steps)
  try {
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    const { createMs, run } = await prompts(runtime, sessions)
    gc()
    const idleBytes = (process.memoryUsage().heapUsed - heapBefore) / sessions
    return { ...run, calls: calls(), createMs, idleBytes }
  } finally {
    await runtime.close()
  }
}

const variant = process.env.VARIANT as Variant
const sessions = Number(process.env.SESSIONS)
const steps = Number(process.env.STEPS)
const file = process.env.FILE
let files = 0
const measured =
  variant === "direct"
    ? await direct(sessions, steps)
    : await agentloop(
        // A fresh file for the warm-up runtime and another for the measured one.
        () => (variant === "memory" ? new MemoryStorage() : new SqliteStorage(`${file}-${files++}`)),
        sessions,
        steps,
      )
if (measured.calls !== sessions * (steps + 1))
  throw new Error(`${variant}: ${measured.calls} model calls, expected ${sessions * (steps + 1)}`)
const report: Measured = { variant, ...measured, maxRss: process.resourceUsage().maxRSS * 1024 }
process.stdout.write(`${JSON.stringify(report)}\n`)
