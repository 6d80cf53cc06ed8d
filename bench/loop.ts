import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { type ModelMessage, streamText, tool } from "ai"
import { z } from "zod"
import { MemoryStorage } from "../src/storage/memory.js"
import type { Storage } from "../src/storage/port.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import {
  createTestRuntime,
  type ScriptedModel,
  type ScriptStep,
  say,
  scriptedModel,
  type Turn,
} from "../src/testing/index.js"
import { Tool } from "../src/tool/index.js"
import { median, printTable } from "./report.js"

/**
 * Step counts measured by default. 1,000 steps are opt-in (BENCH_LOOP_STEPS=10,200,1000): the AI
 * SDK validates the whole prompt at every step, so one 1,000-step run takes minutes on its own.
 */
const STEPS = (process.env.BENCH_LOOP_STEPS ?? "10,200").split(",").map(Number)
/** Rounds measured per step count, after one warm-up round at 10 steps; BENCH_RUNS overrides. */
const runsFor = (steps: number) => Number(process.env.BENCH_RUNS ?? (steps <= 50 ? 15 : steps <= 200 ? 3 : 1))
const TARGET = 1.3
const TOOL = "lookup"
const DESCRIPTION = "Looks up a record and returns about 2 KB of text"

/** About 2 KB of text (32 lines of 64 characters), different at every step. */
function output(n: number): string {
  const line = `record ${n}: a line of the file the agent was asked to read`.padEnd(63, ".").slice(0, 63)
  return `${line}\n`.repeat(32)
}

/** agentloop's tool: the same result as the hand-written loop's, through `Tool.define`. */
const lookup = Tool.define(TOOL, {
  description: DESCRIPTION,
  parameters: z.object({ n: z.number() }),
  async execute({ n }) {
    return { title: `record ${n}`, output: output(n), metadata: {} }
  },
})

/** The hand-written loop's tool: a plain AI SDK tool returning the same string. */
const plainTools = {
  [TOOL]: tool({
    description: DESCRIPTION,
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => output(n),
  }),
}

/** What a run recorded of the prompts the model received: the first and the last. */
type Probe = { calls: number; first?: unknown; last?: unknown }

/**
 * `steps` turns of one tool call each (distinct inputs, so the doom-loop guard never fires),
 * then a final text turn. The model keeps only the first and last prompts: holding all 1,000
 * would keep about 6 million objects alive and bench the garbage collector instead.
 */
function script(steps: number, probe: Probe, model: () => ScriptedModel): Turn[] {
  const turn =
    (index: number, played: ScriptStep[]): Turn =>
    (call) => {
      probe.calls++
      if (index === 0) probe.first = call.prompt
      if (index === steps) probe.last = call.prompt
      model().doStreamCalls.length = 0
      return played
    }
  const turns: Turn[] = []
  for (let index = 0; index < steps; index++) turns.push(turn(index, [say.toolCall(TOOL, { n: index })]))
  turns.push(turn(steps, [say.text("Done: every record is read.")]))
  return turns
}

type RunResult = { ms: number; firstBytes: number; lastBytes: number }

function result(ms: number, steps: number, probe: Probe, variant: string): RunResult {
  if (probe.calls !== steps + 1)
    throw new Error(`${variant}: ${probe.calls} model calls, expected ${steps + 1}`)
  return {
    ms,
    firstBytes: JSON.stringify(probe.first).length,
    lastBytes: JSON.stringify(probe.last).length,
  }
}

/** The floor: `streamText` one step at a time, appending the response messages, until the model stops. */
async function handWritten(steps: number): Promise<RunResult> {
  const probe: Probe = { calls: 0 }
  const model: ScriptedModel = scriptedModel(script(steps, probe, () => model))
  const messages: ModelMessage[] = [{ role: "user", content: "Read every record." }]
  const started = performance.now()
  while (true) {
    const result = streamText({ model, messages, tools: plainTools })
    for await (const _part of result.fullStream);
    messages.push(...(await result.response).messages)
    if ((await result.finishReason) !== "tool-calls") break
  }
  const ms = performance.now() - started
  return result(ms, steps, probe, "hand-written")
}

/** The same steps through `runtime.session.prompt`, timing the prompt call alone. */
async function agentloop(steps: number, storage: Storage): Promise<RunResult> {
  const probe: Probe = { calls: 0 }
  const model: ScriptedModel = scriptedModel(script(steps, probe, () => model))
  const { runtime } = createTestRuntime({
    model,
    storage,
    tools: [lookup],
    agents: { build: { steps: steps + 5 } },
  })
  try {
    // A title of its own, so that no title is generated: this measures the loop.
    const session = await runtime.session.create({ title: "Loop bench" })
    const started = performance.now()
    const answer = await runtime.session.prompt({
      sessionID: session.id,
      parts: [{ type: "text", text: "Read every record." }],
    })
    const ms = performance.now() - started
    const info = answer.info
    if (info.role !== "assistant" || info.finish !== "stop" || info.error)
      throw new Error(`agentloop ended with ${JSON.stringify(info)}`)
    return result(ms, steps, probe, "agentloop-sdk")
  } finally {
    await runtime.close()
  }
}

const perStep = (value: number) => value.toFixed(3)
const times = (value: number) => `${value.toFixed(2)}x`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)}`

type Variant = "handWritten" | "memory" | "sqlite"
type Series = { ms: number[]; ratios: number[]; last: RunResult }
type StepResult = { steps: number; runs: number } & Record<Variant, Series>

const VARIANTS: Variant[] = ["handWritten", "memory", "sqlite"]

let databases = 0

/** One round: every variant once, a different one first in each round. */
async function round(steps: number, index: number, directory: string): Promise<Record<Variant, RunResult>> {
  const file = path.join(directory, `loop-${++databases}.sqlite`)
  const run: Record<Variant, () => Promise<RunResult>> = {
    handWritten: () => handWritten(steps),
    memory: () => agentloop(steps, new MemoryStorage()),
    sqlite: () => agentloop(steps, new SqliteStorage(file)),
  }
  // So that no variant always runs on the heap another left behind.
  const measured = {} as Record<Variant, RunResult>
  for (let offset = 0; offset < VARIANTS.length; offset++) {
    const variant = VARIANTS[(index + offset) % VARIANTS.length]!
    measured[variant] = await run[variant]()
  }
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true })
  return measured
}

async function measure(steps: number, directory: string): Promise<StepResult> {
  const runs = runsFor(steps)
  const series = () => ({ ms: [], ratios: [] }) as unknown as Series
  const results: StepResult = { steps, runs, handWritten: series(), memory: series(), sqlite: series() }
  for (let index = 0; index < runs; index++) {
    const measured = await round(steps, index, directory)
    for (const variant of VARIANTS) {
      const target = results[variant]
      target.last = measured[variant]
      target.ms.push(measured[variant].ms)
      target.ratios.push(measured[variant].ms / measured.handWritten.ms)
    }
  }
  return results
}

export async function runLoopBench(): Promise<void> {
  console.log(
    `Loop: N steps of one tool call returning ${output(0).length.toLocaleString("en-US")} bytes, then a ` +
      "final text step, on a scripted model; runtime.session.prompt against a hand-written streamText " +
      "loop. Each round runs every variant once, on a fresh model and runtime, after one warm-up round of " +
      "10 steps; ratios are taken within a round, then the median is reported\n",
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  const results: StepResult[] = []
  try {
    await round(10, 0, directory)
    for (const steps of STEPS) results.push(await measure(steps, directory))
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }

  const msPerStep = (result: StepResult, variant: Variant) => median(result[variant].ms) / result.steps
  printTable(
    [
      "steps",
      "rounds",
      "hand-written ms/step",
      "memory ms/step",
      "memory ratio",
      "sqlite ms/step",
      "sqlite ratio",
      "target",
    ],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      String(result.runs),
      perStep(msPerStep(result, "handWritten")),
      perStep(msPerStep(result, "memory")),
      times(median(result.memory.ratios)),
      perStep(msPerStep(result, "sqlite")),
      times(median(result.sqlite.ratios)),
      `<= ${TARGET}x`,
    ]),
  )
  const verdicts = results.map((result) => {
    const memory = median(result.memory.ratios)
    const sqlite = median(result.sqlite.ratios)
    return `${result.steps} steps: memory ${memory <= TARGET ? "met" : "MISSED"}, sqlite ${sqlite <= TARGET ? "met" : "MISSED"}`
  })
  console.log(`\nTarget (within ${TARGET}x of the hand-written loop): ${verdicts.join("; ")}`)
  const spread = (target: Series) =>
    `${times(Math.min(...target.ratios))} to ${times(Math.max(...target.ratios))}`
  console.log(
    `Ratios by round: ${results
      .map(
        (result) => `${result.steps} steps memory ${spread(result.memory)}, sqlite ${spread(result.sqlite)}`,
      )
      .join("; ")}\n`,
  )

  // The prompt grows by the same amount at every step, so the mean prompt of a run is the mean of
  // its first and last. Time per KB of prompt that stays flat or falls as N grows means the per-step
  // cost grows no faster than the history sent to the model.
  console.log("History sent to the model (prompt = the call's messages with the system prompt, as JSON):")
  const meanPrompt = (result: StepResult, variant: Variant) =>
    (result[variant].last.firstBytes + result[variant].last.lastBytes) / 2
  const perKB = (result: StepResult, variant: Variant) => {
    const sent = meanPrompt(result, variant) * (result.steps + 1)
    return ((median(result[variant].ms) * 1000) / (sent / 1024)).toFixed(2)
  }
  printTable(
    [
      "steps",
      "hand-written KB at last step",
      "agentloop KB at last step",
      "hand-written µs per KB sent",
      "memory µs per KB sent",
      "sqlite µs per KB sent",
    ],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      kb(result.handWritten.last.lastBytes),
      kb(result.memory.last.lastBytes),
      perKB(result, "handWritten"),
      perKB(result, "memory"),
      perKB(result, "sqlite"),
    ]),
  )
  const first = results[0]!
  const last = results.at(-1)!
  const growth = (variant: Variant) => times(msPerStep(last, variant) / msPerStep(first, variant))
  const history = (variant: Variant) => times(meanPrompt(last, variant) / meanPrompt(first, variant))
  console.log(
    `\nFrom ${first.steps} to ${last.steps} steps, ms/step grows ${growth("handWritten")} hand-written, ` +
      `${growth("memory")} memory, ${growth("sqlite")} sqlite; the mean prompt per step grows ` +
      `${history("handWritten")} hand-written, ${history("memory")} agentloop\n`,
  )
}
