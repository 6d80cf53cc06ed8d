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
import type { Runtime, Storage } from "../src/index.js"
import type { ScriptedModel, ScriptStep, Turn } from "../src/testing/index.js"
import { type LLMServer, MODEL_ID, SCRIPT_HEADER, spawnLLMServer, TOOL_NAME } from "./llm-server.js"
import { agentloop as agentloopPackage, packageSource, sqlite, testing } from "./package.js"
import { preparePiLoop } from "./pi-loop.js"
import { median, printTable } from "./report.js"

const { createProvider, createRuntime, MemoryStorage, Tool } = agentloopPackage
const { SqliteStorage } = sqlite
const { createTestRuntime, say, scriptedModel, testModelInfo } = testing

/**
 * Step counts measured by default. 1,000 steps are opt-in (BENCH_LOOP_STEPS=10,200,1000): the AI
 * SDK validates the whole prompt at every step, so one 1,000-step run takes minutes on its own.
 */
const STEPS = (process.env.BENCH_LOOP_STEPS ?? "10,200").split(",").map(Number)
/** Rounds measured per step count, after one warm-up round at 10 steps; BENCH_RUNS overrides. */
const runsFor = (steps: number) => Number(process.env.BENCH_RUNS ?? (steps <= 50 ? 15 : steps <= 200 ? 3 : 1))
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
export const specTools: LanguageModelV3FunctionTool[] = [
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
/** How the direct loop runs each tool: a plain function from the call's parsed input to the result. */
export type SpecExecute = Record<string, (input: { n: number }) => Promise<string>>
const specExecute: SpecExecute = {
  [TOOL]: async ({ n }) => output(n),
}
export const SYSTEM = "You are an agent that reads records with the tools you are given."
export const PROMPT = "Read every record."

/**
 * What a run recorded of the prompts the model received: the first and the last (the spec prompt on
 * a scripted model, the request body over HTTP).
 */
export type Probe = { calls: number; first?: unknown; last?: unknown }

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

/** A run's wall time and this process's CPU time over it (the mock server's is its own process's). */
type Elapsed = { ms: number; cpuMs: number }
export type RunResult = Elapsed & { firstBytes: number; lastBytes: number }

/** Starts the clocks; the function returned reads both. */
function clock(): () => Elapsed {
  const wall = performance.now()
  const cpu = process.cpuUsage()
  return () => {
    const used = process.cpuUsage(cpu)
    return { ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 }
  }
}

function result(elapsed: Elapsed, steps: number, probe: Probe, variant: string): RunResult {
  if (probe.calls !== steps + 1)
    throw new Error(`${variant}: ${probe.calls} model calls, expected ${steps + 1}`)
  const bytes = (sent: unknown) => (typeof sent === "string" ? sent : JSON.stringify(sent)).length
  return { ...elapsed, firstBytes: bytes(probe.first), lastBytes: bytes(probe.last) }
}

/** A fresh model for one run of `steps` steps, and what it records of the calls it gets. */
export type RunModel = { language: LanguageModelV3; probe: Probe }

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
 * `fetch` it is given counts the calls and keeps the first and last request bodies, and hands each
 * body to `onBody` (the profile driver's request sizes).
 */
export function overHttp(steps: number, server: LLMServer, onBody?: (body: unknown) => void): RunModel {
  const probe: Probe = { calls: 0 }
  const counting: typeof fetch = (input, init) => {
    onBody?.(init?.body)
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

/**
 * How each variant gets its model: scripted, or over HTTP from one server (which pi's loop, with
 * its own provider, is pointed at too).
 */
export type Models =
  | { transport: "scripted"; model: (steps: number) => RunModel }
  | { transport: "http"; model: (steps: number) => RunModel; server: LLMServer }

/** The AI SDK floor: `streamText` one step at a time, appending the response messages, until the model stops. */
async function handWritten(steps: number, models: Models): Promise<RunResult> {
  const { language: model, probe } = models.model(steps)
  const messages: ModelMessage[] = [{ role: "user", content: PROMPT }]
  const stop = clock()
  while (true) {
    const result = streamText({ model, messages, tools: plainTools })
    for await (const _part of result.fullStream);
    messages.push(...(await result.response).messages)
    if ((await result.finishReason) !== "tool-calls") break
  }
  return result(stop(), steps, probe, "hand-written")
}

/**
 * The floor below `streamText`: the provider spec called by hand. The history is kept as the
 * provider prompt itself; each step calls `model.doStream`, reads the stream with a reader,
 * collects text and tool calls, appends the assistant message, runs the tools (`JSON.parse` of
 * the call's input, no schema validation) and appends their results, until the model stops.
 */
export async function direct(steps: number, models: Models): Promise<RunResult> {
  const { language: model, probe } = models.model(steps)
  const stop = clock()
  await directLoop(model)
  return result(stop(), steps, probe, "direct")
}

/** The direct loop's steps on `model` until it stops; returns the history, which is its prompt. */
export async function directLoop(
  model: LanguageModelV3,
  execute: SpecExecute = specExecute,
): Promise<LanguageModelV3Prompt> {
  const prompt: LanguageModelV3Prompt = [
    { role: "system", content: SYSTEM },
    { role: "user", content: [{ type: "text", text: PROMPT }] },
  ]
  const abort = new AbortController()
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
          value: await execute[call.toolName]!(call.input as { n: number }),
        },
      })),
    )
    prompt.push({ role: "tool", content: results })
  }
  return prompt
}

/** Runs the timed part of a run: the profile driver (bench/loop-profile.ts) profiles it alone. */
export type Around = <T>(measured: () => Promise<T>) => Promise<T>

/**
 * The same steps through `runtime.session.prompt`, timing the prompt call alone (run by `around`). On a scripted
 * model the runtime is `createTestRuntime`'s; over HTTP it is `createRuntime` with a provider of
 * the one model the server serves.
 */
export async function agentloop(
  steps: number,
  storage: Storage,
  models: Models,
  around: Around = (measured) => measured(),
): Promise<RunResult> {
  const { language, probe } = models.model(steps)
  // The others' system prompt, and no environment block: the same request, the same work.
  const options = {
    storage,
    tools: [lookup],
    agents: { build: { steps: steps + 5, prompt: SYSTEM } },
    environment: "none" as const,
  }
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
    const { answer, elapsed } = await around(async () => {
      const stop = clock()
      const answer = await runtime.session.prompt({
        sessionID: session.id,
        parts: [{ type: "text", text: PROMPT }],
      })
      return { answer, elapsed: stop() }
    })
    const info = answer.info
    if (info.role !== "assistant" || info.finish !== "stop" || info.error)
      throw new Error(`agentloop ended with ${JSON.stringify(info)}`)
    return result(elapsed, steps, probe, "agentloop-sdk")
  } finally {
    await runtime.close()
  }
}

/** pi's `Agent` over its own OpenAI-compatible provider, on the same server and the same steps. */
export async function pi(steps: number, server: LLMServer): Promise<RunResult> {
  const { run, probe } = preparePiLoop(steps, server, {
    system: SYSTEM,
    prompt: PROMPT,
    description: DESCRIPTION,
    output,
  })
  const stop = clock()
  await run()
  return result(stop(), steps, probe, "pi-agent-core")
}

const perStep = (value: number) => value.toFixed(3)
const times = (value: number) => `${value.toFixed(2)}x`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)}`

type Variant = "handWritten" | "direct" | "pi" | "memory" | "sqlite"
/** One variant's runs, in round order, and the last run's request sizes. */
type Series = { runs: RunResult[] }
type StepResult = { steps: number; rounds: number; variants: Variant[] } & Partial<Record<Variant, Series>>

/** pi's loop runs over HTTP only: it speaks to a server through its own provider, not to a spec model. */
const variantsOf = (models: Models): Variant[] =>
  models.transport === "http"
    ? ["handWritten", "direct", "pi", "memory", "sqlite"]
    : ["handWritten", "direct", "memory", "sqlite"]

/** Issue 32's goals, against the direct loop and pi measured in the same round. */
const GOALS = { memoryOverDirect: 1.1, memoryOverPi: 1, sqliteOverDirect: 1.25 }

/** One round: every variant once, a different one first in each round. */
async function round(
  steps: number,
  index: number,
  file: string,
  models: Models,
): Promise<Partial<Record<Variant, RunResult>>> {
  const run: Record<Variant, () => Promise<RunResult>> = {
    handWritten: () => handWritten(steps, models),
    direct: () => direct(steps, models),
    pi: () => {
      if (models.transport !== "http") throw new Error("pi's loop runs over HTTP only")
      return pi(steps, models.server)
    },
    memory: () => agentloop(steps, new MemoryStorage(), models),
    sqlite: () => agentloop(steps, new SqliteStorage(file), models),
  }
  // So that no variant always runs on the heap another left behind.
  const variants = variantsOf(models)
  const measured: Partial<Record<Variant, RunResult>> = {}
  for (let offset = 0; offset < variants.length; offset++) {
    const variant = variants[(index + offset) % variants.length]!
    measured[variant] = await run[variant]()
  }
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true })
  return measured
}

async function measure(steps: number, directory: string, models: Models): Promise<StepResult> {
  const rounds = runsFor(steps)
  const variants = variantsOf(models)
  const results: StepResult = { steps, rounds, variants }
  for (const variant of variants) results[variant] = { runs: [] }
  for (let index = 0; index < rounds; index++) {
    const file = path.join(directory, `loop-${models.transport}-${steps}-${index}.sqlite`)
    const measured = await round(steps, index, file, models)
    for (const variant of variants) results[variant]!.runs.push(measured[variant]!)
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
        models = { transport, model: (steps) => overHttp(steps, started), server: started }
      }
      console.log(introduction(transport))
      console.log(`agentloop from ${packageSource}`)
      await round(10, 0, path.join(directory, `warm-up-${transport}.sqlite`), models)
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
    "and parses the SSE reply, and the server parses every body. pi-agent-core's Agent runs the same " +
    `steps through pi-ai's own OpenAI-compatible provider (the openai SDK) on the same server; ${common}`
  )
}

const NAMES: Record<Variant, string> = {
  handWritten: "streamText loop",
  direct: "direct loop",
  pi: "pi-agent-core",
  memory: "agentloop memory",
  sqlite: "agentloop SQLite",
}

/** Per-round ratios of one variant's wall (or CPU) time to another's. */
function ratios(
  result: StepResult,
  variant: Variant,
  baseline: Variant,
  of: "ms" | "cpuMs" = "ms",
): number[] {
  const over = result[baseline]!.runs
  return result[variant]!.runs.map((run, index) => run[of] / over[index]![of])
}
const medianRatio = (result: StepResult, variant: Variant, baseline: Variant) =>
  median(ratios(result, variant, baseline))
const msPerStep = (result: StepResult, variant: Variant) =>
  median(result[variant]!.runs.map((run) => run.ms)) / result.steps
const cpuPerStep = (result: StepResult, variant: Variant) =>
  median(result[variant]!.runs.map((run) => run.cpuMs)) / result.steps

function report(transport: Transport, results: StepResult[]): void {
  timeTables(results)
  goals(results)
  spread(results)
  history(transport, results)
}

/** Wall and CPU time per step of every variant. */
function timeTables(results: StepResult[]): void {
  const variants = results[0]!.variants
  // Wall time per step with the ratio to the direct loop of the same round beside each.
  const cell = (result: StepResult, variant: Variant) =>
    variant === "direct" || variant === "handWritten"
      ? perStep(msPerStep(result, variant))
      : `${perStep(msPerStep(result, variant))} (${times(medianRatio(result, variant, "direct"))})`
  console.log(
    "Wall ms per step (median of rounds; in brackets the median per-round ratio to the direct loop):",
  )
  printTable(
    ["steps", "rounds", ...variants.map((variant) => NAMES[variant])],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      String(result.rounds),
      ...variants.map((variant) => cell(result, variant)),
    ]),
  )
  // CPU time moves less than wall time with the machine's other load: the steadier ratio.
  const cpuCell = (result: StepResult, variant: Variant) =>
    variant === "direct" || variant === "handWritten"
      ? perStep(cpuPerStep(result, variant))
      : `${perStep(cpuPerStep(result, variant))} (${times(median(ratios(result, variant, "direct", "cpuMs")))})`
  console.log(
    "\nCPU ms per step of this process (median of rounds, in brackets the median per-round ratio to the direct loop; the server's work is not in it):",
  )
  printTable(
    ["steps", ...variants.map((variant) => NAMES[variant])],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      ...variants.map((variant) => cpuCell(result, variant)),
    ]),
  )
}

/** Issue 32's goals against the median per-round ratios, and the time added per step. */
function goals(results: StepResult[]): void {
  const variants = results[0]!.variants
  const withPi = variants.includes("pi")
  const verdict = (ratio: number, goal: number) => `${times(ratio)} ${ratio <= goal ? "met" : "MISSED"}`
  for (const result of results) {
    const goals = [
      `memory/direct ${verdict(medianRatio(result, "memory", "direct"), GOALS.memoryOverDirect)} (<= ${GOALS.memoryOverDirect}x)`,
      ...(withPi
        ? [
            `memory/pi ${verdict(medianRatio(result, "memory", "pi"), GOALS.memoryOverPi)} (<= ${GOALS.memoryOverPi}x)`,
          ]
        : []),
      `sqlite/direct ${verdict(medianRatio(result, "sqlite", "direct"), GOALS.sqliteOverDirect)} (<= ${GOALS.sqliteOverDirect}x)`,
      `streamText/direct ${times(medianRatio(result, "handWritten", "direct"))}`,
    ]
    console.log(`\nGoals at ${result.steps} steps: ${goals.join("; ")}`)
  }

  // On a scripted model the direct loop costs next to nothing, so its ratios are large and swing
  // with it; the time added per step over it is the steadier figure.
  const added = (result: StepResult, variant: Variant) => {
    const direct = result.direct!.runs
    return perStep(
      median(result[variant]!.runs.map((run, index) => run.ms - direct[index]!.ms)) / result.steps,
    )
  }
  const others = variants.filter((variant) => variant !== "direct" && variant !== "handWritten")
  console.log(
    `Added per step over the direct loop (median of the rounds' differences, ms): ${results
      .map(
        (result) =>
          `${result.steps} steps ${others.map((variant) => `${NAMES[variant]} ${added(result, variant)}`).join(", ")}`,
      )
      .join("; ")}\n`,
  )
}

/** Every round's ratio, in the order the rounds ran, then their range. */
function spread(results: StepResult[]): void {
  const variants = results[0]!.variants
  const others = variants.filter((variant) => variant !== "direct" && variant !== "handWritten")
  const byRound = (values: number[]) =>
    `${values.map((ratio) => ratio.toFixed(2)).join(" ")}  (${times(Math.min(...values))} to ${times(Math.max(...values))})`
  const pairs: [Variant, Variant][] = [
    ...others.map((variant): [Variant, Variant] => [variant, "direct"]),
    ...(variants.includes("pi") ? [["memory", "pi"] as [Variant, Variant]] : []),
    ["handWritten", "direct"],
  ]
  for (const result of results) {
    console.log(`Ratios by round, ${result.steps} steps:`)
    for (const [variant, baseline] of pairs)
      console.log(
        `  ${`${NAMES[variant]} / ${NAMES[baseline]}`.padEnd(34)} ${byRound(ratios(result, variant, baseline))}`,
      )
  }
  console.log()
}

/**
 * The prompt grows by the same amount at every step, so the mean prompt of a run is the mean of
 * its first and last. Time per KB of prompt that stays flat or falls as N grows means the per-step
 * cost grows no faster than the history sent to the model.
 */
function history(transport: Transport, results: StepResult[]): void {
  const variants = results[0]!.variants
  // Both agentloop variants send the same requests.
  const senders = variants.filter((variant) => variant !== "sqlite")
  console.log(
    transport === "scripted"
      ? "History sent to the model (prompt = the call's messages with the system prompt, as JSON):"
      : "History sent to the model (the request body as posted: JSON of the messages, system prompt and tools):",
  )
  const last = (result: StepResult, variant: Variant) => result[variant]!.runs.at(-1)!
  const meanPrompt = (result: StepResult, variant: Variant) =>
    (last(result, variant).firstBytes + last(result, variant).lastBytes) / 2
  const perKB = (result: StepResult, variant: Variant) => {
    const sent = meanPrompt(result, variant) * (result.steps + 1)
    return ((msPerStep(result, variant) * result.steps * 1000) / (sent / 1024)).toFixed(2)
  }
  const sender = (variant: Variant) => (variant === "memory" ? "agentloop" : NAMES[variant])
  printTable(
    [
      "steps",
      ...senders.map((variant) => `${sender(variant)} KB at last step`),
      ...variants.map((variant) => `${NAMES[variant]} µs per KB sent`),
    ],
    results.map((result) => [
      result.steps.toLocaleString("en-US"),
      ...senders.map((variant) => kb(last(result, variant).lastBytes)),
      ...variants.map((variant) => perKB(result, variant)),
    ]),
  )
  const first = results[0]!
  const final = results.at(-1)!
  console.log(
    `\nSent at the first step: ${senders
      .map((variant) => `${sender(variant)} ${kb(last(first, variant).firstBytes)} KB`)
      .join(", ")} (every variant sends the same system prompt and tool)`,
  )
  const growth = (variant: Variant) => times(msPerStep(final, variant) / msPerStep(first, variant))
  const grown = (variant: Variant) => times(meanPrompt(final, variant) / meanPrompt(first, variant))
  console.log(
    `From ${first.steps} to ${final.steps} steps, ms/step grows ${variants
      .map((variant) => `${growth(variant)} ${NAMES[variant]}`)
      .join(", ")}; the mean prompt per step grows ${senders
      .map((variant) => `${grown(variant)} ${sender(variant)}`)
      .join(", ")}\n`,
  )
}
