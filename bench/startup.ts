import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { median, printTable } from "./report.js"

/** Rounds measured after one warm-up round; BENCH_RUNS overrides. */
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
/** What importing the package may add on top of its peers `ai` and `zod`, in ms. */
const GOAL_MS = 30
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const DIST = path.join(ROOT, "dist", "index.js")
/** As a file URL, so that `import()` takes it on every platform. */
const DIST_URL = pathToFileURL(DIST).href

/** The child processes timed from spawn to exit. Bare specifiers resolve from the repository root. */
const SPAWNED = {
  bare: { label: 'node -e ""', args: ["-e", ""] },
  peers: {
    label: "node: import ai, zod",
    args: ["--input-type=module", "-e", "await import('ai'); await import('zod')"],
  },
  withPackage: {
    label: "node: import ai, zod, agentloop-sdk",
    args: [
      "--input-type=module",
      "-e",
      `await import('ai'); await import('zod'); await import(${JSON.stringify(DIST_URL)})`,
    ],
  },
} as const
type Spawned = keyof typeof SPAWNED

/**
 * A child that times its own imports with `performance.now()`: the peers, then the package on top
 * of them. Free of the process start and exit, which vary by more than the package costs.
 */
const IN_PROCESS = [
  "--input-type=module",
  "-e",
  [
    "const started = performance.now()",
    "await import('ai')",
    "await import('zod')",
    "const peers = performance.now()",
    `await import(${JSON.stringify(DIST_URL)})`,
    "const done = performance.now()",
    "console.log(JSON.stringify({ peers: peers - started, package: done - peers }))",
  ].join("; "),
]

type Step = Spawned | "inProcess"
const STEPS: Step[] = ["bare", "peers", "withPackage", "inProcess"]

/** The child's environment: NODE_OPTIONS dropped, so every child is a plain `node`. */
const env = { ...process.env }
delete env.NODE_OPTIONS

function run(args: readonly string[]): { ms: number; stdout: string } {
  const started = performance.now()
  const child = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: "utf8" })
  const ms = performance.now() - started
  if (child.status !== 0)
    throw new Error(`node ${args.join(" ")} exited with ${child.status ?? child.signal}: ${child.stderr}`)
  return { ms, stdout: child.stdout }
}

type Round = Record<Spawned, number> & { inPeers: number; inPackage: number }

/** One round: every child once, a different one first in each round. */
function round(index: number): Round {
  const measured = {} as Round
  for (let offset = 0; offset < STEPS.length; offset++) {
    const step = STEPS[(index + offset) % STEPS.length]!
    if (step === "inProcess") {
      const times = JSON.parse(run(IN_PROCESS).stdout) as { peers: number; package: number }
      measured.inPeers = times.peers
      measured.inPackage = times.package
    } else measured[step] = run(SPAWNED[step].args).ms
  }
  return measured
}

/** The newest modification time of a file under `directory`, in ms. */
function newest(directory: string): number {
  let latest = 0
  for (const entry of fs.readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs)
  }
  return latest
}

const ms = (value: number) => value.toFixed(1)

export async function runStartupBench(): Promise<void> {
  if (!fs.existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` first`)
  console.log(
    `\nStartup: the cost of importing the built package (${path.relative(ROOT, DIST)}) on top of its peers ` +
      `ai and zod. ${RUNS} rounds after one warm-up; each round spawns every child once, in a rotating ` +
      "order; times are from spawn to exit, and medians are reported. A further child times its own " +
      "imports with performance.now()\n",
  )
  if (fs.statSync(DIST).mtimeMs < newest(path.join(ROOT, "src")))
    console.log("Note: dist/ is older than src/; run `npm run build` to measure the current code\n")

  round(0)
  const rounds: Round[] = []
  for (let index = 0; index < RUNS; index++) rounds.push(round(index))

  const column = (pick: (round: Round) => number) => rounds.map(pick)
  const row = (label: string, values: number[]) => [
    label,
    ms(median(values)),
    ms(Math.min(...values)),
    ms(Math.max(...values)),
  ]
  const added = column((round) => round.withPackage - round.peers)
  const inPackage = column((round) => round.inPackage)
  printTable(
    ["child process, spawn to exit", "median ms", "min ms", "max ms"],
    [
      ...(Object.keys(SPAWNED) as Spawned[]).map((name) =>
        row(
          SPAWNED[name].label,
          column((round) => round[name]),
        ),
      ),
      row("difference: agentloop-sdk - (ai, zod), by round", added),
    ],
  )
  console.log()
  printTable(
    ["import, timed inside the child", "median ms", "min ms", "max ms"],
    [
      row(
        "ai, then zod",
        column((round) => round.inPeers),
      ),
      row("agentloop-sdk, after ai and zod", inPackage),
    ],
  )
  const verdict = (value: number) => `${ms(value)} ms, ${value <= GOAL_MS ? "met" : "MISSED"}`
  console.log(
    `\nThe package adds ${verdict(median(added))} over ai+zod from spawn to exit (median of the rounds' ` +
      `differences), and ${verdict(median(inPackage))} timed in the process; goal <= ${GOAL_MS} ms\n`,
  )
}
