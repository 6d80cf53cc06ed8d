/**
 * A fresh process's first turn (issue 32, startup): import, runtime creation, and one tool step
 * plus the answer against the mock LLM server, for the `streamText` loop, the direct `doStream`
 * loop, and agentloop on memory and on SQLite. Each child (bench/first-turn-child.mjs, plain
 * JavaScript on the built package) reports when it had imported, was ready and had its answer,
 * in ms since its own process started, and the CPU time it had used by then (all its threads:
 * steadier than the wall clock on a shared machine); ratios are to the `streamText` loop of the
 * same round.
 *
 *   npm run build && npx tsx bench/index.ts first-turn
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { spawnLLMServer } from "./llm-server.js"
import { median, printTable } from "./report.js"

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const CHILD = path.join(ROOT, "bench", "first-turn-child.mjs")
const VARIANTS = ["streamtext", "direct", "memory", "sqlite"] as const
type Variant = (typeof VARIANTS)[number]
const LABELS: Record<Variant, string> = {
  streamtext: "`streamText` loop",
  direct: "direct `doStream` loop",
  memory: "agentloop memory",
  sqlite: "agentloop SQLite",
}
type Marks = { imported: number; ready: number; answered: number; cpu: number }

export async function runFirstTurnBench(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, "dist", "index.js"))) throw new Error("run `npm run build` first")
  const server = await spawnLLMServer()
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-first-turn-"))
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const run = (variant: Variant, round: number): Marks => {
    const file = path.join(directory, `${round}-${variant}.db`)
    const stdout = execFileSync(process.execPath, [CHILD, variant, server.baseURL, file], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    })
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as Marks
  }
  try {
    for (const variant of VARIANTS) run(variant, -1)
    const rounds: Record<Variant, Marks>[] = []
    for (let round = 0; round < RUNS; round++) {
      const order = VARIANTS.map((_, index) => VARIANTS[(index + round) % VARIANTS.length]!)
      const marks = {} as Record<Variant, Marks>
      for (const variant of order) marks[variant] = run(variant, round)
      rounds.push(marks)
    }
    report(rounds)
  } finally {
    await server.close()
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

function report(rounds: Record<Variant, Marks>[]): void {
  console.log(
    `\nFirst turn of a fresh process (ms since the process started; median of ${rounds.length} rounds, ` +
      "ratio: median of per-round ratios to the streamText loop)",
  )
  const ms = (value: number) => value.toFixed(1)
  const rows = VARIANTS.map((variant) => {
    const of = (key: keyof Marks) => median(rounds.map((round) => round[variant][key]))
    const ratio = (key: keyof Marks) =>
      `${median(rounds.map((round) => round[variant][key] / round.streamtext[key])).toFixed(2)}x`
    return [
      LABELS[variant],
      ms(of("imported")),
      ms(of("ready")),
      ms(of("answered")),
      ratio("answered"),
      ms(of("cpu")),
      ratio("cpu"),
    ]
  })
  printTable(
    ["variant", "imported", "ready", "answered", "answered / streamText", "CPU", "CPU / streamText"],
    rows,
  )
}
