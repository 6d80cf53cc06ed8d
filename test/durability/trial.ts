import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import { parseAcks } from "./acks.js"
import type { Finding } from "./check-storage.js"
import { ChildWatch } from "./child-watch.js"
import { diskFullStage } from "./disk-full.js"
import { describeError } from "./integrity.js"
import { type ChildCommand, runChild } from "./launch.js"
import { type FaultKind, planRun, type RunPlan } from "./plan.js"
import { type PostgresSource, postgresStage } from "./postgres-stage.js"
import { killFraction } from "./prng.js"
import { CHILD_DEADLINE_MS, misnamedFaults, type Stage, sqliteStage, type TrialDrivers } from "./stage.js"

export type TrialResult = {
  seed: number
  fault: FaultKind
  /** The SQLite trials' drivers: the child's, and the one the parent locked and checked with. */
  drivers?: TrialDrivers
  resume: "loop" | "prompt"
  /** Why the trial's fault cannot run here: nothing ran. */
  skipped?: string
  /** When the kill or fault came, after the child's start. */
  killAtMs: number
  /** Lines the child printed before it died: `--kill-after-line` replays the trial by them. */
  lines: number
  /** Where the kill or fault landed: the child's last line when killed, else what the fault did. */
  landed: string
  /** How many of the child's turns failed with a StorageError (it went on with loop()). */
  failedTurns: number
  findings: Finding[]
  /** The whole trial: the child, then the checks. */
  elapsedMs: number
}

export type TrialContext = {
  command: ChildCommand
  durationMs: number
  /** The faults a trial's seed draws from (plan.ts). */
  faults: readonly FaultKind[]
  /** The faults that cannot run here, and why. */
  unsupported: ReadonlyMap<FaultKind, string>
  postgres: PostgresSource
  /** The SQLite drivers the trials run on, taken by turns (trialDrivers). */
  drivers: readonly SqliteDriver[]
  killAfterLine?: number | undefined
}

/**
 * The drivers of the SQLite trial of `seed`: the child's by turns (seed modulo their number, so
 * a replay with the same `--seed` and `--drivers` runs the same one), and the other one, where
 * there are two, for this process's lock and checks.
 */
export function trialDrivers(drivers: readonly SqliteDriver[], seed: number): TrialDrivers {
  const child = drivers[seed % drivers.length]
  if (!child) throw new Error("the SQLite trials need a driver")
  return { child, parent: drivers.find((driver) => driver !== child) ?? child }
}

/**
 * One trial: a child on fresh storage meets its fault at `killFraction(seed) × durationMs` after
 * its start (a SIGKILL, or after `killAfterLine` lines to replay one; or one of the faults it
 * lives through), then the checks on what it left.
 */
export async function runTrial(context: TrialContext, seed: number): Promise<TrialResult> {
  const started = performance.now()
  const plan = planRun(seed, context.faults)
  const killAtMs = Math.round(killFraction(seed) * context.durationMs)
  const drivers = trialDrivers(context.drivers, seed)
  const postgres = plan.fault.kind === "pg-terminate" || plan.fault.kind === "pg-restart"
  const base = {
    seed,
    fault: plan.fault.kind,
    ...(postgres ? {} : { drivers }),
    resume: plan.resume,
    killAtMs,
    lines: 0,
    failedTurns: 0,
  }
  const skipped = context.unsupported.get(plan.fault.kind)
  if (skipped) return { ...base, skipped, landed: `SKIPPED ${plan.fault.kind}`, findings: [], elapsedMs: 0 }
  const directory = mkdtempSync(join(tmpdir(), "agentloop-durability-"))
  const stage = await openStage(context, plan, { directory, atMs: killAtMs, drivers }).catch(describeError)
  try {
    if (typeof stage === "string") {
      const findings = [{ check: "harness" as const, detail: `the fault could not be set up: ${stage}` }]
      return {
        ...base,
        landed: `${plan.fault.kind}, not set up`,
        findings,
        elapsedMs: performance.now() - started,
      }
    }
    return {
      ...base,
      ...(await runStage(context, stage, plan, seed, killAtMs)),
      elapsedMs: performance.now() - started,
    }
  } finally {
    if (typeof stage !== "string") await stage.dispose().catch(() => undefined)
    rmSync(directory, { recursive: true, force: true })
  }
}

function openStage(
  context: TrialContext,
  plan: RunPlan,
  where: { directory: string; atMs: number; drivers: TrialDrivers },
): Promise<Stage> {
  const { directory, atMs, drivers } = where
  switch (plan.fault.kind) {
    case "full":
      return Promise.resolve().then(() => diskFullStage(directory, plan, atMs, drivers))
    case "pg-terminate":
    case "pg-restart":
      return postgresStage(context.postgres, plan, atMs)
    default:
      return Promise.resolve(sqliteStage(directory, plan, atMs, drivers))
  }
}

/** Runs the child with its fault, then the checks. */
async function runStage(context: TrialContext, stage: Stage, plan: RunPlan, seed: number, killAtMs: number) {
  const { killAfterLine } = context
  const kill = !stage.kills
    ? { afterMs: CHILD_DEADLINE_MS }
    : killAfterLine === undefined
      ? { afterMs: killAtMs }
      : { afterLine: killAfterLine }
  const watch = new ChildWatch()
  const running = runChild(context.command, [String(seed), ...stage.args], kill, (text) => watch.line(text))
  running.finally(() => watch.exit()).catch(() => undefined)
  const [run, failed] = await Promise.all([running, stage.apply(watch).then(() => undefined, describeError)])
  const acks = parseAcks(run.lines)
  const findings: Finding[] = failed
    ? [{ check: "harness", detail: `the fault failed: ${failed}` }]
    : !run.killed && run.code !== 0
      ? [{ check: "harness", detail: `the child exited with ${run.code}: ${lastLines(run.stderr)}` }]
      : [
          ...misnamedFaults(acks, plan.fault.kind),
          ...(await stage
            .check(acks, plan)
            .catch((error: unknown) => [
              { check: "harness" as const, detail: `the checks crashed: ${describeError(error)}` },
            ])),
        ]
  return {
    // A replay by lines reports when its kill actually came.
    killAtMs: killAfterLine === undefined || !stage.kills ? killAtMs : Math.round(run.elapsedMs),
    lines: run.lines.length,
    landed: stage.landed(run.killed, acks),
    failedTurns: acks.faults.length,
    findings,
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
  drivers: readonly SqliteDriver[],
): Promise<number> {
  const samples = Math.max(2, parallel * 2)
  let longest = 0
  for (let first = 0; first < samples; first += parallel) {
    const runs = await Promise.all(
      Array.from({ length: Math.min(parallel, samples - first) }, async (_, offset) => {
        const directory = mkdtempSync(join(tmpdir(), "agentloop-durability-"))
        try {
          const sample = seed + first + offset
          const file = join(directory, "agentloop.db")
          return await runChild(command, [String(sample), file, trialDrivers(drivers, sample).child], {
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
