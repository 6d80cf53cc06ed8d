import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type {
  LanguageModelV3,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider"
import { type ModelMessage, streamText, tool } from "ai"
import { z } from "zod"
import { createProvider } from "../src/provider/provider.js"
import { createRuntime, type Runtime } from "../src/runtime.js"
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
  testModelInfo,
} from "../src/testing/index.js"
import { Tool } from "../src/tool/index.js"
import { type LLMServer, MODEL_ID, SCRIPT_HEADER, spawnLLMServer, TOOL_NAME } from "./llm-server.js"
import { median, printTable } from "./report.js"

/**
 * Step counts measured by default. 1,000 steps are opt-in (BENCH_LOOP_STEPS=10,200,1000): the AI
 * SDK validates the whole prompt at every step, so one 1,000-step run takes minutes on its own.
 */
const STEPS = (process.env.BENCH_LOOP_STEPS ?? "10,200").split(",").map(Number)
/** Rounds measured per step count, after one warm-up round at 10 steps; BENCH_RUNS overrides. */
const runsFor = (steps: number) => Number(process.env.BENCH_RUNS ?? (steps <= 50 ? 15 : steps <= 200 ? 3 : 1))
const TARGET = 1.3
/**
 * How the models are reached: `scripted` (in-process `scriptedModel`: no prompt serialised, no SSE
 * parsed), `http` (`@ai-sdk/openai-compatible` against the mock LLM server of bench/llm-server.ts),
 * or `both` (the default): one table each.
 */
type Transport = "scripted" | "http"
const TRANSPORTS: Transport[] = (() => {
  const chosen = process.env.BENCH_LOOP_TRANSPORT ?? "both"
  if (chosen === "both") return ["scripted", "http"]
  if (chosen === "scripted" || chosen === "http") return [chosen]
  throw new Error(`BENCH_LOOP_TRANSPORT=${chosen}: expected http, scripted or both`)
})()
const TOOL = TOOL_NAME
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

/**
 * The direct loop's tools, as the provider spec takes them: the JSON schema written out once, as
 * `streamText` would send it, and a plain function per tool returning the same string.
 */
const specTools: LanguageModelV3FunctionTool[] = [
  {
    type: "function",
    name: TOOL,
    description: DESCRIPTION,
    inputSchema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
      additionalProperties: false,
    },
  },
]
const specExecute: Record<string, (input: { n: number }) => Promise<string>> = {
  [TOOL]: async ({ n }) => output(n),
}
const SYSTEM = "You are an agent that reads records with the tools you are given."

/**
 * What a run recorded of the prompts the model received: the first and the last (the spec prompt on
 * a scripted model, the request body over HTTP).
 */
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
      // Copies: the direct loop passes one prompt array and keeps appending to it.
      if (index === 0) probe.first = [...call.prompt]
      if (index === steps) probe.last = [...call.prompt]
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
  const bytes = (sent: unknown) => (typeof sent === "string" ? sent : JSON.stringify(sent)).length
  return { ms, firstBytes: bytes(probe.first), lastBytes: bytes(probe.last) }
}

/** A fresh model for one run of `steps` steps, and what it records of the calls it gets. */
type RunModel = { language: LanguageModelV3; probe: Probe }

/** The scripted model: the steps as `Turn`s, played in this process. */
function scripted(steps: number): RunModel {
  const probe: Probe = { calls: 0 }
  const model: ScriptedModel = scriptedModel(script(steps, probe, () => model))
  // Under ai 7 the scripted model speaks spec v4, whose text and tool-call parts read the same.
  return { language: model as unknown as LanguageModelV3, probe }
}

/**
 * The same steps from the mock LLM server, through `@ai-sdk/openai-compatible`: each call serialises
 * the prompt to JSON, posts it and parses the SSE reply. A fresh provider per run, as a fresh
 * scripted model is; the server knows the script from a header and the step from the body. The
 * `fetch` it is given counts the calls and keeps the first and last request bodies.
 */
function overHttp(steps: number, server: LLMServer): RunModel {
  const probe: Probe = { calls: 0 }
  const counting: typeof fetch = (input, init) => {
    if (probe.calls === 0) probe.first = init?.body
    if (probe.calls === steps) probe.last = init?.body
    probe.calls++
    return fetch(input, init)
  }
  const provider = createOpenAICompatible({
    name: "mock",
    baseURL: server.baseURL,
    includeUsage: true,
    headers: { [SCRIPT_HEADER]: `loop:${steps}` },
    fetch: counting,
  })
  return { language: provider.chatModel(MODEL_ID), probe }
}

/** How each variant gets its model: scripted, or over HTTP from one server. */
type Models = { transport: Transport; model: (steps: number) => RunModel }

/** The AI SDK floor: `streamText` one step at a time, appending the response messages, until the model stops. */
async function handWritten(steps: number, models: Models): Promise<RunResult> {
  const { language: model, probe } = models.model(steps)
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

/**
 * The floor below `streamText`: the provider spec called by hand. The history is kept as the
 * provider prompt itself; each step calls `model.doStream`, reads the stream with a reader,
 * collects text and tool calls, appends the assistant message, runs the tools (`JSON.parse` of
 * the call's input, no schema validation) and appends their results, until the model stops.
 */
async function direct(steps: number, models: Models): Promise<RunResult> {
  const { language: model, probe } = models.model(steps)
  const prompt: LanguageModelV3Prompt = [
    { role: "system", content: SYSTEM },
    { role: "user", content: [{ type: "text", text: "Read every record." }] },
  ]
  const abort = new AbortController()
  const started = performance.now()
  while (true) {
    const { stream } = await model.doStream({ prompt, tools: specTools, abortSignal: abort.signal })
    const reader = stream.getReader()
    const content: (LanguageModelV3TextPart | LanguageModelV3ToolCallPart)[] = []
    const texts = new Map<string, LanguageModelV3TextPart>()
    const calls: LanguageModelV3ToolCallPart[] = []
    let finish = "other"
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value
      switch (part.type) {
        case "text-start": {
          const text: LanguageModelV3TextPart = { type: "text", text: "" }
          texts.set(part.id, text)
          content.push(text)
          break
        }
        case "text-delta":
          texts.get(part.id)!.text += part.delta
          break
        case "tool-call": {
          const call: LanguageModelV3ToolCallPart = {
            type: "tool-call",
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: JSON.parse(part.input),
          }
          calls.push(call)
          content.push(call)
          break
        }
        case "finish":
          finish = part.finishReason.unified
          break
        case "error":
          throw part.error
      }
    }
    prompt.push({ role: "assistant", content })
    if (finish !== "tool-calls") break
    const results: LanguageModelV3ToolResultPart[] = await Promise.all(
      calls.map(async (call) => ({
        type: "tool-result" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: {
          type: "text" as const,
          value: await specExecute[call.toolName]!(call.input as { n: number }),
        },
      })),
    )
    prompt.push({ role: "tool", content: results })
  }
  const ms = performance.now() - started
  return result(ms, steps, probe, "direct")
}

/**
 * The same steps through `runtime.session.prompt`, timing the prompt call alone. On a scripted
 * model the runtime is `createTestRuntime`'s; over HTTP it is `createRuntime` with a provider of
 * the one model the server serves.
 */
async function agentloop(steps: number, storage: Storage, models: Models): Promise<RunResult> {
  const { language, probe } = models.model(steps)
  const options = { storage, tools: [lookup], agents: { build: { steps: steps + 5 } } }
  let runtime: Runtime
  if (models.transport === "scripted") {
    runtime = createTestRuntime({ ...options, model: language as ScriptedModel }).runtime
  } else {
    const ref = { providerID: "mock", modelID: MODEL_ID }
    const info = { ...testModelInfo, providerID: ref.providerID, id: ref.modelID, name: "Mock LLM server" }
    runtime = createRuntime({
      ...options,
      provider: createProvider({ models: [{ ...ref, language, info }], default: ref }),
    })
  }
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

type Variant = "handWritten" | "direct" | "memory" | "sqlite"
/** Times of one variant, and its ratios to each baseline of the same round. */
type Series = { ms: number[]; ratios: number[]; directRatios: number[]; last: RunResult }
type StepResult = { steps: number; runs: number } & Record<Variant, Series>

const VARIANTS: Variant[] = ["handWritten", "direct", "memory", "sqlite"]

let databases = 0

/** One round: every variant once, a different one first in each round. */
async function round(
  steps: number,
  index: number,
  directory: string,
  models: Models,
): Promise<Record<Variant, RunResult>> {
  const file = path.join(directory, `loop-${++databases}.sqlite`)
  const run: Record<Variant, () => Promise<RunResult>> = {
    handWritten: () => handWritten(steps, models),
    direct: () => direct(steps, models),
    memory: () => agentloop(steps, new MemoryStorage(), models),
    sqlite: () => agentloop(steps, new SqliteStorage(file), models),
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

async function measure(steps: number, directory: string, models: Models): Promise<StepResult> {
  const runs = runsFor(steps)
  const series = () => ({ ms: [], ratios: [], directRatios: [] }) as unknown as Series
  const results: StepResult = {
    steps,
    runs,
    handWritten: series(),
    direct: series(),
    memory: series(),
    sqlite: series(),
  }
  for (let index = 0; index < runs; index++) {
    const measured = await round(steps, index, directory, models)
    for (const variant of VARIANTS) {
      const target = results[variant]
      target.last = measured[variant]
      target.ms.push(measured[variant].ms)
      target.ratios.push(measured[variant].ms / measured.handWritten.ms)
      target.directRatios.push(measured[variant].ms / measured.direct.ms)
    }
  }
  return results
}

export async function runLoopBench(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  let server: LLMServer | undefined
  try {
    for (const transport of TRANSPORTS) {
      let models: Models
      if (transport === "scripted") models = { transport, model: scripted }
      else {
        const started = await spawnLLMServer()
        server = started
        models = { transport, model: (steps) => overHttp(steps, started) }
      }
      console.log(introduction(transport))
      await round(10, 0, directory, models)
      const results: StepResult[] = []
      for (const steps of STEPS) results.push(await measure(steps, directory, models))
      report(transport, results)
    }
  } finally {
    await server?.close()
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

function introduction(transport: Transport): string {
  const common =
    "runtime.session.prompt against two hand-written loops: streamText one step at a time, and the " +
    "provider spec called directly (model.doStream, no streamText). Each round runs every variant once, " +
    "on a fresh model and runtime, after one warm-up round of 10 steps; ratios are taken within a round, " +
    "then the median is reported\n"
  const steps = `N steps of one tool call returning ${output(0).length.toLocaleString("en-US")} bytes, then a final text step`
  if (transport === "scripted")
    return `Loop, scripted model: ${steps}, on an in-process scripted model; ${common}`
  return (
    `Loop over HTTP: ${steps}, from the mock LLM server (bench/llm-server.ts, a child process) through ` +
    "@ai-sdk/openai-compatible: every call serialises the prompt, posts it on a keep-alive connection " +
    `and parses the SSE reply, and the server parses every body; ${common}`
  )
}

function report(transport: Transport, results: StepResult[]): void {
  const msPerStep = (result: StepResult, variant: Variant) => median(result[variant].ms) / result.steps
  printTable(
    [
      "steps",
      "rounds",
      "streamText loop ms/step",
      "direct loop ms/step",
      "memory ms/step",
      "memory / streamText",
      "memory / direct",
      "sqlite ms/step",
      "sqlite / streamText",
      "sqlite / direct",
      "target",
    ],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      String(result.runs),
      perStep(msPerStep(result, "handWritten")),
      perStep(msPerStep(result, "direct")),
      perStep(msPerStep(result, "memory")),
      times(median(result.memory.ratios)),
      times(median(result.memory.directRatios)),
      perStep(msPerStep(result, "sqlite")),
      times(median(result.sqlite.ratios)),
      times(median(result.sqlite.directRatios)),
      `<= ${TARGET}x`,
    ]),
  )
  const verdicts = results.map((result) => {
    const memory = median(result.memory.ratios)
    const sqlite = median(result.sqlite.ratios)
    return `${result.steps} steps: memory ${memory <= TARGET ? "met" : "MISSED"}, sqlite ${sqlite <= TARGET ? "met" : "MISSED"}`
  })
  console.log(`\nTarget (within ${TARGET}x of the hand-written streamText loop): ${verdicts.join("; ")}`)
  console.log(
    `The direct loop against the streamText loop (median of rounds): ${results
      .map((result) => `${result.steps} steps ${times(median(result.direct.ratios))}`)
      .join("; ")}`,
  )

  // The direct loop costs next to nothing on a scripted model, so its ratios are large and swing
  // with it; the time added per step over it is the steadier figure.
  const added = (result: StepResult, variant: Variant) =>
    perStep(median(result[variant].ms.map((ms, index) => ms - result.direct.ms[index]!)) / result.steps)
  console.log(
    `Added per step over the direct loop (median of the rounds' differences, ms): ${results
      .map(
        (result) =>
          `${result.steps} steps memory ${added(result, "memory")}, sqlite ${added(result, "sqlite")}`,
      )
      .join("; ")}\n`,
  )

  // Every round's ratio, in the order the rounds ran, then the spread.
  const byRound = (ratios: number[]) =>
    `${ratios.map((ratio) => ratio.toFixed(2)).join(" ")}  (${times(Math.min(...ratios))} to ${times(Math.max(...ratios))})`
  for (const result of results) {
    console.log(`Ratios by round, ${result.steps} steps:`)
    console.log(`  memory / streamText  ${byRound(result.memory.ratios)}`)
    console.log(`  memory / direct      ${byRound(result.memory.directRatios)}`)
    console.log(`  sqlite / streamText  ${byRound(result.sqlite.ratios)}`)
    console.log(`  sqlite / direct      ${byRound(result.sqlite.directRatios)}`)
    console.log(`  direct / streamText  ${byRound(result.direct.ratios)}`)
  }
  console.log()

  // The prompt grows by the same amount at every step, so the mean prompt of a run is the mean of
  // its first and last. Time per KB of prompt that stays flat or falls as N grows means the per-step
  // cost grows no faster than the history sent to the model.
  console.log(
    transport === "scripted"
      ? "History sent to the model (prompt = the call's messages with the system prompt, as JSON):"
      : "History sent to the model (the request body as posted: JSON of the messages, system prompt and tools):",
  )
  const meanPrompt = (result: StepResult, variant: Variant) =>
    (result[variant].last.firstBytes + result[variant].last.lastBytes) / 2
  const perKB = (result: StepResult, variant: Variant) => {
    const sent = meanPrompt(result, variant) * (result.steps + 1)
    return ((median(result[variant].ms) * 1000) / (sent / 1024)).toFixed(2)
  }
  printTable(
    [
      "steps",
      "streamText KB at last step",
      "direct KB at last step",
      "agentloop KB at last step",
      "streamText µs per KB sent",
      "direct µs per KB sent",
      "memory µs per KB sent",
      "sqlite µs per KB sent",
    ],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      kb(result.handWritten.last.lastBytes),
      kb(result.direct.last.lastBytes),
      kb(result.memory.last.lastBytes),
      perKB(result, "handWritten"),
      perKB(result, "direct"),
      perKB(result, "memory"),
      perKB(result, "sqlite"),
    ]),
  )
  const first = results[0]!
  const last = results.at(-1)!
  console.log(
    `\nSent at the first step: streamText loop ${kb(first.handWritten.last.firstBytes)} KB, direct loop ` +
      `${kb(first.direct.last.firstBytes)} KB, agentloop ${kb(first.memory.last.firstBytes)} KB ` +
      "(agentloop's system prompt and built-in tools are the difference)",
  )
  const growth = (variant: Variant) => times(msPerStep(last, variant) / msPerStep(first, variant))
  const history = (variant: Variant) => times(meanPrompt(last, variant) / meanPrompt(first, variant))
  console.log(
    `From ${first.steps} to ${last.steps} steps, ms/step grows ${growth("handWritten")} streamText loop, ` +
      `${growth("direct")} direct loop, ${growth("memory")} memory, ${growth("sqlite")} sqlite; the mean ` +
      `prompt per step grows ${history("handWritten")} streamText loop, ${history("direct")} direct loop, ` +
      `${history("memory")} agentloop\n`,
  )
}
