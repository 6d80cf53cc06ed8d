/**
 * Where a loop step's time goes: one variant of the loop bench over HTTP (the mock LLM server),
 * profiled in this process with the inspector, and what a step does counted.
 *
 *   npx tsx bench/loop-profile.ts [memory|sqlite|direct|pi] [steps=200] [runs=3]
 *
 * - CPU profile (100 µs sampling) of `runs` runs of `steps` steps, after warm-up runs, written
 *   to the temporary directory, summed per step: self time by where it is spent (bucketOf), time
 *   inside each activity of a step (ACTIVITIES, overlapping), zod's time by the caller that asked,
 *   the top functions, and for agentloop the time of its work over the history (history-work.ts).
 * - Calls per step of every function outside Node, from V8's precise coverage (call counts) of a
 *   run of half the steps and one of `steps`: the difference over the difference in steps, so fixed
 *   per-run costs drop out; for agentloop, storage calls and rows per step the same way.
 * - Request body bytes at steps 1, 10 and `steps`.
 */
import fs from "node:fs"
import { Session } from "node:inspector/promises"
import os from "node:os"
import path from "node:path"
import { writeChecked } from "../src/storage/checked-write.js"
import { MemoryStorage } from "../src/storage/memory.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { add, breakdown, type Profile, printBreakdown } from "./cpu-profile.js"
import { printHistoryWork } from "./history-work.js"
import { type LLMServer, spawnLLMServer } from "./llm-server.js"
import type { Around, Models, RunResult } from "./loop.js"
import { printTable } from "./report.js"

// The profile names source files: agentloop is loaded from src/, not the built package
// (bench/package.ts), so the loop bench is imported once that is set.
process.env.AGENTLOOP_BENCH_SOURCE = "src"
const { agentloop, direct, overHttp, pi } = await import("./loop.js")

type Variant = "memory" | "sqlite" | "direct" | "pi"
const [variantArg = "memory", stepsArg = "200", runsArg = "3"] = process.argv.slice(2)
if (!["memory", "sqlite", "direct", "pi"].includes(variantArg))
  throw new Error(`variant ${variantArg}: expected memory, sqlite, direct or pi`)
const VARIANT = variantArg as Variant
const STEPS = Number(stepsArg)
const RUNS = Number(runsArg)
/** Calls are counted as the difference between a run of HALF steps and one of STEPS. */
const HALF = Math.max(1, Math.floor(STEPS / 2))

/** Storage calls, by method and by write type, summed over the runs since the last reset. */
type Tally = { calls: Map<string, number>; rows: Map<string, number> }
const newTally = (): Tally => ({ calls: new Map(), rows: new Map() })

/**
 * A storage whose reads and writes are counted into `tally`. Its methods are replaced on the
 * instance, the checked write path with `write`, so that the runtime's batches still take it
 * (see checkedWriteOf).
 */
function countedStorage<S extends MemoryStorage | SqliteStorage>(storage: S, tally: () => Tally): S {
  const reads = [
    "getSession",
    "listSessions",
    "getMessage",
    "listMessages",
    "getValue",
    "listValues",
  ] as const
  const methods = storage as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const name of reads) {
    const read = methods[name]!.bind(storage)
    methods[name] = (...args) => {
      add(tally().calls, name)
      return read(...args)
    }
  }
  const write = storage.write.bind(storage)
  storage.write = (writes) => {
    add(tally().calls, "write")
    for (const one of writes) add(tally().rows, one.type)
    return write(writes)
  }
  const checked = storage[writeChecked].bind(storage)
  storage[writeChecked] = (writes) => {
    add(tally().calls, "write")
    for (const { write: one } of writes) add(tally().rows, one.type)
    return checked(writes)
  }
  return storage
}

/** What runs left to count: storage calls and rows, and each request body's size. */
type Counted = { tally: Tally; bodies: number[] }

/** Runs the chosen variant; `fresh` starts counting anew and returns what will be counted. */
function createRunner(server: LLMServer, directory: string) {
  let counted: Counted = { tally: newTally(), bodies: [] }
  const models: Models = {
    transport: "http",
    server,
    model: (steps) => overHttp(steps, server, (body) => counted.bodies.push(String(body).length)),
  }
  let databases = 0
  const once = (steps: number, around: Around = (measured) => measured()): Promise<RunResult> => {
    if (VARIANT === "direct") return around(() => direct(steps, models))
    if (VARIANT === "pi") return around(() => pi(steps, server))
    const storage =
      VARIANT === "memory"
        ? new MemoryStorage()
        : new SqliteStorage(path.join(directory, `profile-${++databases}.sqlite`))
    return agentloop(
      steps,
      countedStorage(storage, () => counted.tally),
      models,
      around,
    )
  }
  const fresh = (): Counted => {
    counted = { tally: newTally(), bodies: [] }
    return counted
  }
  return { once, fresh }
}
type Runner = ReturnType<typeof createRunner>

/** One run of `steps` steps under precise coverage: calls by function, and what it counted. */
async function countRun(inspector: Session, runner: Runner, steps: number) {
  const counted = runner.fresh()
  await runner.once(steps)
  const { result } = await inspector.post("Profiler.takePreciseCoverage")
  const calls = new Map<string, number>()
  for (const script of result)
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0
      if (count === 0 || !fn.functionName) continue
      add(calls, `${fn.functionName} ${script.url.replace(/^.*\/(node_modules|src|bench)\//, "$1/")}`, count)
    }
  return { calls, counted }
}
type CountedRun = Awaited<ReturnType<typeof countRun>>

/** RUNS runs of STEPS steps, each profiled over its timed part only (for agentloop, the prompt call). */
async function profileRuns(inspector: Session, runner: Runner) {
  await inspector.post("Profiler.setSamplingInterval", { interval: 100 })
  const profiles: Profile[] = []
  const profiled: Around = async (measured) => {
    await inspector.post("Profiler.start")
    try {
      return await measured()
    } finally {
      const { profile } = await inspector.post("Profiler.stop")
      profiles.push(profile as unknown as Profile)
    }
  }
  const results: RunResult[] = []
  for (let run = 0; run < RUNS; run++) results.push(await runner.once(STEPS, profiled))
  return { profiles, results }
}

/** Calls, storage calls and rows per step (the difference between the two runs), and request sizes. */
function printCounts(short: CountedRun, long: CountedRun): void {
  const per = (key: string) => ((long.calls.get(key) ?? 0) - (short.calls.get(key) ?? 0)) / (STEPS - HALF)
  // Node's own functions (streams, undici) are left out: the direct loop calls them as often.
  const ours = (key: string) => !/ node:/.test(key) && per(key) >= 0.5
  console.log(`\nCalls per step outside Node (from ${STEPS}- and ${HALF}-step runs), the 200 most called:`)
  printTable(
    ["function", "calls per step"],
    [...long.calls.keys()]
      .filter(ours)
      .sort((a, b) => per(b) - per(a))
      .slice(0, 200)
      .map((key) => [key, per(key).toFixed(2)]),
  )
  const [few, many] = [short.counted.tally, long.counted.tally]
  const perTally = (map: "calls" | "rows", key: string) =>
    (((many[map].get(key) ?? 0) - (few[map].get(key) ?? 0)) / (STEPS - HALF)).toFixed(2)
  if (many.calls.size > 0) {
    console.log("\nStorage per step:")
    printTable(
      ["call or row", "per step"],
      [
        ...[...many.calls.keys()].map((key) => [`${key}()`, perTally("calls", key)]),
        ...[...many.rows.keys()].map((key) => [`row ${key}`, perTally("rows", key)]),
      ],
    )
  }
  const sent = long.counted.bodies
  const at = (step: number) => (sent[step - 1] ?? 0).toLocaleString("en-US")
  console.log(
    `\nRequest bytes: step 1 ${at(1)}, step 10 ${at(10)}, step ${STEPS} ${at(STEPS)}` +
      " (the direct and agentloop variants; pi's bodies are not seen here)",
  )
}

async function main() {
  const server = await spawnLLMServer()
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-profile-"))
  const runner = createRunner(server, directory)
  const inspector = new Session()
  inspector.connect()
  try {
    await runner.once(10)
    await runner.once(STEPS)
    await inspector.post("Profiler.enable")
    await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
    await inspector.post("Profiler.takePreciseCoverage")
    const short = await countRun(inspector, runner, HALF)
    const long = await countRun(inspector, runner, STEPS)
    await inspector.post("Profiler.stopPreciseCoverage")
    // So that the profiled runs count into a tally nobody reads.
    runner.fresh()

    const { profiles, results } = await profileRuns(inspector, runner)
    const file = path.join(os.tmpdir(), `loop-${VARIANT}-${STEPS}.cpuprofile`)
    fs.writeFileSync(file, JSON.stringify(profiles.at(-1)))
    const steps = STEPS * RUNS
    const wall = results.reduce((sum, run) => sum + run.ms, 0) / steps
    const cpu = results.reduce((sum, run) => sum + run.cpuMs, 0) / steps
    console.log(
      `${VARIANT}, ${RUNS} runs of ${STEPS} steps: ${wall.toFixed(3)} ms wall and ${cpu.toFixed(3)} ms CPU ` +
        `per step (profiler on); the last run's profile is ${file}\n`,
    )
    printBreakdown(breakdown(profiles), steps)
    if (VARIANT === "memory" || VARIANT === "sqlite") printHistoryWork(profiles, steps)
    printCounts(short, long)
  } finally {
    inspector.disconnect()
    await server.close()
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

await main()
