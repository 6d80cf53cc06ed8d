/**
 * The durability trials (issues 12, 27 and 42):
 *   npx tsx test/durability/run.ts --trials 200 [--seed N] [--parallel 2] [--faults kill,busy,...]
 *     [--drivers node:sqlite,better-sqlite3] [--duration ms] [--kill-after-line N]
 * Each trial starts a child that runs a streaming, tool-using session and meets one fault at a
 * random moment (plan.ts): kill -9 (half the time), or, while it lives on, a second process
 * holding its SQLite file's write lock, a full disk under its SQLite file (a real tmpfs), or its
 * PostgreSQL backends terminated or the server restarted. A new runtime then checks that every
 * acknowledged write is there, that nothing is left unfinished, that the totals hold and that
 * the session goes on (half the kill trials with loop() first, which must continue a cut turn).
 * The SQLite trials take the drivers by turns (seed modulo their number): the child runs on one,
 * and this process holds the busy lock and checks the file through the other, where there are
 * two; --drivers defaults to every driver that loads here (AGENTLOOP_SQLITE_DRIVERS makes some
 * required, see test/storage/sqlite-drivers.ts).
 * A fault this machine cannot set up (a tmpfs needs root; PostgreSQL its binaries) skips its
 * trials, loudly; with CI set the run fails instead.
 * Exits 1 when any trial failed. A failed trial is replayed with `--seed <its seed> --trials 1`
 * (and the same `--faults` and `--drivers`), and either `--duration` (the same time) or
 * `--kill-after-line` (the same point in its output).
 */
import { parseArgs } from "node:util"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import { sqliteDrivers } from "../storage/sqlite-drivers.js"
import { FAULT_KINDS, type FaultKind } from "./plan.js"
import { failureLine, skippedLines, summaryLines } from "./report.js"
import { runTrials } from "./trials.js"

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "200" },
    seed: { type: "string" },
    parallel: { type: "string", default: "2" },
    faults: { type: "string", default: FAULT_KINDS.join(",") },
    drivers: { type: "string" },
    duration: { type: "string" },
    "kill-after-line": { type: "string" },
  },
})
const number = (name: string, text: string) => {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name} must be a whole number, not ${text}`)
  return value
}
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : number("seed", values.seed)
const trials = number("trials", values.trials)
const faults = values.faults.split(",").map((name) => {
  if (!(FAULT_KINDS as readonly string[]).includes(name))
    throw new Error(`--faults takes some of ${FAULT_KINDS.join(",")}, not ${name}`)
  return name as FaultKind
})
const loadable = sqliteDrivers()
const drivers = (values.drivers?.split(",") ?? loadable).map((name) => {
  const driver = loadable.find((known) => known === name)
  if (!driver)
    throw new Error(`--drivers takes some of ${loadable.join(",")} (the drivers that load here), not ${name}`)
  return driver satisfies SqliteDriver
})

console.log(`durability: ${trials} trials from seed ${seed}, SQLite on ${drivers.join(" and ")} by turns`)
const summary = await runTrials({
  trials,
  seed,
  faults,
  drivers,
  parallel: number("parallel", values.parallel),
  ...(values.duration === undefined ? {} : { durationMs: number("duration", values.duration) }),
  ...(values["kill-after-line"] === undefined
    ? {}
    : { killAfterLine: number("kill-after-line", values["kill-after-line"]) }),
  onStart: ({ durationMs, bundled, unsupported }) => {
    for (const text of skippedLines(unsupported)) console.log(text)
    const how = bundled ? "bundled with esbuild" : "through tsx"
    const when =
      values["kill-after-line"] === undefined
        ? `runs ${durationMs} ms to completion; kills and faults drawn over [0, ${durationMs}] ms`
        : `is killed after line ${values["kill-after-line"]}`
    console.log(`the child (${how}) ${when}`)
  },
  onResult: (result) => {
    if (result.findings.length > 0) console.log(failureLine(result))
  },
})
for (const text of summaryLines(summary)) console.log(text)
process.exitCode = summary.results.some((result) => result.findings.length > 0) ? 1 : 0
