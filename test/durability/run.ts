/**
 * The kill -9 durability trial (issue 12):
 *   npx tsx test/durability/run.ts --trials 200 [--seed N] [--parallel 2] [--duration ms] [--kill-after-line N]
 * Each trial starts a child that runs a streaming, tool-using session on SQLite, kills it with
 * SIGKILL at a random moment (or, in about a third of the trials, holds the file's write lock from
 * this process for a while and lets the child go on), and checks that a new runtime finds every
 * acknowledged write, repairs what was cut off, keeps its totals and continues the session (half
 * the trials with loop() first, which must continue a cut turn).
 * Exits 1 when any trial failed. A failed trial is replayed with `--seed <its seed> --trials 1` and
 * either `--duration` (the same kill time) or `--kill-after-line` (the same point in its output).
 */
import { parseArgs } from "node:util"
import { failureLine, summaryLines } from "./report.js"
import { runTrials } from "./trials.js"

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "200" },
    seed: { type: "string" },
    parallel: { type: "string", default: "2" },
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

console.log(`durability: ${trials} trials from seed ${seed}`)
const summary = await runTrials({
  trials,
  seed,
  parallel: number("parallel", values.parallel),
  ...(values.duration === undefined ? {} : { durationMs: number("duration", values.duration) }),
  ...(values["kill-after-line"] === undefined
    ? {}
    : { killAfterLine: number("kill-after-line", values["kill-after-line"]) }),
  onStart: ({ durationMs, bundled }) => {
    const how = bundled ? "bundled with esbuild" : "through tsx"
    const when =
      values["kill-after-line"] === undefined
        ? `runs ${durationMs} ms to completion; kills drawn over [0, ${durationMs}] ms`
        : `is killed after line ${values["kill-after-line"]}`
    console.log(`the child (${how}) ${when}`)
  },
  onResult: (result) => {
    if (result.findings.length > 0) console.log(failureLine(result))
  },
})
for (const text of summaryLines(summary)) console.log(text)
process.exitCode = summary.results.some((result) => result.findings.length > 0) ? 1 : 0
