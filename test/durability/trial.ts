import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseAcks } from "./acks.js"
import { holdWriteLock } from "./busy-lock.js"
import { checkFile, type Finding } from "./check-file.js"
import { describeError } from "./integrity.js"
import { type ChildCommand, runChild } from "./launch.js"
import { planRun } from "./plan.js"
import { killFraction } from "./prng.js"

export type TrialResult = {
  seed: number
  killAtMs: number
  /** Lines the child printed before it died: `--kill-after-line` replays the trial by them. */
  lines: number
  /** What the child had printed last when the kill landed, or that it had finished. */
  landed: string
  findings: Finding[]
  /** The whole trial: the child, then the checks. */
  elapsedMs: number
}

const FINISHED = "child finished before the kill"
/** A child that is not killed (busy trials) must still finish: no trial may hang the run. */
const CHILD_DEADLINE_MS = 60_000

/**
 * One trial: a child on a fresh database file, SIGKILLed at `killFraction(seed) × durationMs`
 * after its start (or after `killAfterLine` lines, to replay one), then the checks on what it left.
 */
export async function runTrial(
  command: ChildCommand,
  seed: number,
  durationMs: number,
  killAfterLine?: number,
): Promise<TrialResult> {
  const started = performance.now()
  const directory = mkdtempSync(join(tmpdir(), "agentloop-durability-"))
  const killAtMs = Math.round(killFraction(seed) * durationMs)
  try {
    const file = join(directory, "agentloop.db")
    const plan = planRun(seed)
    const busy = plan.fault.kind === "busy" ? plan.fault : undefined
    const kill = busy
      ? { afterMs: CHILD_DEADLINE_MS }
      : killAfterLine === undefined
        ? { afterMs: killAtMs }
        : { afterLine: killAfterLine }
    const running = runChild(command, [file, String(seed)], kill)
    // Not killed: another process holds the file's write lock for a while, and the child goes on.
    if (busy) await holdWriteLock(file, killAtMs, busy.holdMs, CHILD_DEADLINE_MS)
    const run = await running
    const acks = parseAcks(run.lines)
    const findings: Finding[] =
      !run.killed && run.code !== 0
        ? [{ check: "harness", detail: `the child exited with ${run.code}: ${lastLines(run.stderr)}` }]
        : await checkFile(file, acks, plan).catch((error: unknown) => [
            { check: "harness" as const, detail: `the checks crashed: ${describeError(error)}` },
          ])
    const landed = busy
      ? `busy lock, ${acks.faults.length > 0 ? "past the retry bound: the child went on with loop()" : "within the retry bound"}`
      : run.killed
        ? acks.last
        : FINISHED
    const lines = run.lines.length
    // A replay by lines reports when its kill actually came.
    const killedAt = killAfterLine === undefined ? killAtMs : Math.round(run.elapsedMs)
    return { seed, killAtMs: killedAt, lines, landed, findings, elapsedMs: performance.now() - started }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/**
 * How long a child takes to run to completion: the longest of a few runs, all `parallel` at once
 * as the trials will run, plus 5%, so that kill points cover the whole run and a little after.
 */
export async function measureDuration(
  command: ChildCommand,
  seed: number,
  parallel: number,
): Promise<number> {
  const samples = Math.max(2, parallel * 2)
  let longest = 0
  for (let first = 0; first < samples; first += parallel) {
    const runs = await Promise.all(
      Array.from({ length: Math.min(parallel, samples - first) }, async (_, offset) => {
        const directory = mkdtempSync(join(tmpdir(), "agentloop-durability-"))
        try {
          return await runChild(command, [join(directory, "agentloop.db"), String(seed + first + offset)], {
            afterMs: 60_000,
          })
        } finally {
          rmSync(directory, { recursive: true, force: true })
        }
      }),
    )
    for (const run of runs) {
      if (run.killed || run.code !== 0 || run.lines.at(-1) !== "done")
        throw new Error(`the child does not run to completion (exit ${run.code}): ${lastLines(run.stderr)}`)
      longest = Math.max(longest, run.elapsedMs)
    }
  }
  return Math.ceil(longest * 1.05)
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-6).join(" | ")
}
