import { execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { median, printTable } from "./report.js"
import type { Measured, Variant } from "./sessions-worker.js"

/** Sessions run at once (BENCH_SESSIONS overrides), tool steps each, and rounds (BENCH_RUNS). */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000)
const STEPS = Number(process.env.BENCH_SESSIONS_STEPS ?? 10)
const ROUNDS = Number(process.env.BENCH_RUNS ?? 3)
/** Issue 32 part 5: against the direct loops of the same round. */
const GOALS = { stepsPerSecond: 0.8, peakRss: 1.5 }
const VARIANTS: Variant[] = ["direct", "memory", "sqlite"]
const NAMES: Record<Variant, string> = {
  direct: "direct loops",
  memory: "agentloop memory",
  sqlite: "agentloop SQLite",
}
const worker = fileURLToPath(new URL("./sessions-worker.ts", import.meta.url))

/** One variant in a child process of its own, so that the peak RSS read is that variant's alone. */
function measure(variant: Variant, file: string): Measured {
  const stdout = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", worker], {
    env: { ...process.env, VARIANT: variant, SESSIONS: String(SESSIONS), STEPS: String(STEPS), FILE: file },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Measured
}

type Rounds = Record<Variant, Measured[]>

export async function runSessionsBench(): Promise<void> {
  console.log(
    `\nSessions: ${SESSIONS.toLocaleString("en-US")} sessions at once in one process, each ${STEPS} tool ` +
      "steps then a final text, all on one in-process scripted model that answers each call from its own " +
      "prompt. Direct loops: bench/loop.ts's doStream loop per session, all started with Promise.all. " +
      "agentloop: one runtime, its sessions created, then one runtime.session.prompt each, all at once. " +
      `Each variant runs in a child process of its own (after a warm-up of 20 sessions); ${ROUNDS} rounds, ` +
      "a different variant first in each; medians of rounds, ratios are medians of per-round ratios\n",
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-sessions-"))
  const rounds: Rounds = { direct: [], memory: [], sqlite: [] }
  try {
    for (let index = 0; index < ROUNDS; index++)
      for (let offset = 0; offset < VARIANTS.length; offset++) {
        const variant = VARIANTS[(index + offset) % VARIANTS.length]!
        rounds[variant].push(measure(variant, path.join(directory, `sessions-${index}.sqlite`)))
      }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
  report(rounds)
}

const stepsPerSecond = (run: Measured) => run.calls / (run.ms / 1000)
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const times = (value: number) => `${value.toFixed(2)}x`
/** Per-round ratios of a variant's figure to the direct loops'. */
const ratios = (rounds: Rounds, variant: Variant, figure: (run: Measured) => number) =>
  rounds[variant].map((run, index) => figure(run) / figure(rounds.direct[index]!))
const middle = (rounds: Rounds, variant: Variant, figure: (run: Measured) => number) =>
  median(rounds[variant].map(figure))

function report(rounds: Rounds): void {
  const ratio = (variant: Variant, figure: (run: Measured) => number) =>
    variant === "direct" ? "" : times(median(ratios(rounds, variant, figure)))
  printTable(
    [
      "variant",
      "steps/s",
      "ratio",
      "CPU µs/step",
      "KB allocated/step",
      "peak RSS MB",
      "ratio",
      "RSS added MB",
      "heap per idle session KB",
      "create sessions ms",
    ],
    VARIANTS.map((variant) => [
      NAMES[variant],
      middle(rounds, variant, stepsPerSecond).toFixed(0),
      ratio(variant, stepsPerSecond),
      middle(rounds, variant, (run) => (run.cpuMs * 1000) / run.calls).toFixed(0),
      middle(rounds, variant, (run) => run.allocated / 1024 / run.calls).toFixed(1),
      mb(middle(rounds, variant, (run) => run.maxRss)),
      ratio(variant, (run) => run.maxRss),
      mb(middle(rounds, variant, (run) => run.maxRss - run.rssBefore)),
      (middle(rounds, variant, (run) => run.idleBytes) / 1024).toFixed(1),
      variant === "direct" ? "" : middle(rounds, variant, (run) => run.createMs).toFixed(0),
    ]),
  )
  console.log(
    "\nSteps are model calls (tool steps and finals). KB allocated: the JavaScript heap's allocations during the run, " +
      "collected or not (v8.GCProfiler), which noise does not move. RSS added: peak RSS less the RSS just before the run. " +
      "Heap per idle session: heapUsed after GC with the finished sessions kept (the direct loops' histories; " +
      "agentloop's runtime with its sessions) less heapUsed before them, over the sessions",
  )
  for (const variant of ["memory", "sqlite"] as const) {
    const speed = median(ratios(rounds, variant, stepsPerSecond))
    const rss = median(ratios(rounds, variant, (run) => run.maxRss))
    const verdict = (met: boolean) => (met ? "met" : "MISSED")
    console.log(
      `Goals, ${NAMES[variant]}: steps/s ${times(speed)} ${verdict(speed >= GOALS.stepsPerSecond)} ` +
        `(>= ${GOALS.stepsPerSecond}x); peak RSS ${times(rss)} ${verdict(rss <= GOALS.peakRss)} (<= ${GOALS.peakRss}x)`,
    )
    const byRound = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ")
    console.log(
      `  by round: steps/s ${byRound(ratios(rounds, variant, stepsPerSecond))}; peak RSS ${byRound(
        ratios(rounds, variant, (run) => run.maxRss),
      )}`,
    )
  }
  console.log()
}
