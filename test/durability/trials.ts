import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import { findPostgres } from "../setup/pg-cluster.js"
import { type OwnCluster, ownCluster } from "../storage/pg-faults-helpers.js"
import { diskFullUnsupported } from "./disk-full.js"
import { prepareChild } from "./launch.js"
import { FAULT_KINDS, type FaultKind } from "./plan.js"
import { type PostgresSource, postgresUnsupported } from "./postgres-stage.js"
import { measureDuration, runTrial, type TrialResult } from "./trial.js"

export type TrialsOptions = {
  trials: number
  /** The first trial's seed; trial i uses seed + i, so `--seed <its seed> --trials 1` replays it. */
  seed: number
  /** The faults the trials draw from (plan.ts); default all. Another set gives a seed another fault. */
  faults?: readonly FaultKind[]
  /**
   * The SQLite drivers the SQLite trials run on, by turns (trial.ts, trialDrivers): the child on
   * one, this process's lock and checks on the other. run.ts and the unit test pass every driver
   * that loads here (sqliteDrivers); another list gives a seed another driver.
   */
  drivers: readonly SqliteDriver[]
  /** Children running at once. Default 2. */
  parallel?: number
  /** The child's run length kills are drawn over; measured when absent. */
  durationMs?: number
  /** Kill each child once it has printed this many lines instead (to replay a failed trial). */
  killAfterLine?: number
  onStart?: (start: {
    durationMs: number
    bundled: boolean
    unsupported: ReadonlyMap<FaultKind, string>
  }) => void
  onResult?: (result: TrialResult) => void
}

export type TrialsSummary = {
  seed: number
  parallel: number
  drivers: readonly SqliteDriver[]
  durationMs: number
  results: TrialResult[]
  /** The faults that could not run here, and why: their trials are skipped. */
  unsupported: ReadonlyMap<FaultKind, string>
  wallMs: number
}

/**
 * Runs the durability trials (see run.ts) and returns every trial's result, in seed order. A
 * fault this machine cannot set up (a tmpfs needs root, PostgreSQL its binaries) skips its
 * trials; with CI set it fails the run instead.
 */
export async function runTrials(options: TrialsOptions): Promise<TrialsSummary> {
  const started = performance.now()
  const parallel = Math.max(1, options.parallel ?? 2)
  const faults = options.faults ?? FAULT_KINDS
  const { drivers } = options
  if (drivers.length === 0) throw new Error("the durability trials need a SQLite driver, and none loads here")
  const unsupported = unsupportedFaults(faults)
  if (process.env.CI && unsupported.size > 0)
    throw new Error(
      `CI runs every fault mode, and these cannot run here: ${[...unsupported].map(([kind, why]) => `${kind} (${why})`).join(", ")}`,
    )
  const clusters: Promise<OwnCluster>[] = []
  const command = await prepareChild()
  try {
    // A replay by lines needs no kill times.
    const durationMs =
      options.durationMs ??
      (options.killAfterLine === undefined
        ? await measureDuration(command, options.seed, parallel, drivers)
        : 0)
    options.onStart?.({ durationMs, bundled: command.bundled, unsupported })
    const results: TrialResult[] = []
    let next = 0
    const worker = async (slot: number) => {
      // A restart disturbs only this worker's trials, which run one at a time.
      const postgres: PostgresSource = {
        shared: process.env.AGENTLOOP_PG_URL,
        own: () => {
          const bin = findPostgres()
          if (!bin) return Promise.reject(new Error("no PostgreSQL binaries"))
          clusters[slot] ??= ownCluster(bin)
          return clusters[slot]
        },
      }
      const context = {
        command,
        durationMs,
        faults,
        unsupported,
        postgres,
        drivers,
        killAfterLine: options.killAfterLine,
      }
      for (let index = next++; index < options.trials; index = next++) {
        const result = await runTrial(context, (options.seed + index) >>> 0)
        results[index] = result
        options.onResult?.(result)
      }
    }
    const workers = Array.from({ length: Math.min(parallel, options.trials) }, (_, slot) => worker(slot))
    await Promise.all(workers)
    return {
      seed: options.seed,
      parallel,
      drivers,
      durationMs,
      results,
      unsupported,
      wallMs: performance.now() - started,
    }
  } finally {
    command.dispose()
    for (const cluster of clusters) await cluster?.then((own) => own.remove()).catch(() => undefined)
  }
}

/** The faults among `faults` that cannot be set up here, with the reason. */
function unsupportedFaults(faults: readonly FaultKind[]): Map<FaultKind, string> {
  const reasons = new Map<FaultKind, string>()
  const why = (kind: FaultKind): string | undefined => {
    if (kind === "full") return diskFullUnsupported()
    if (kind === "pg-terminate" || kind === "pg-restart") return postgresUnsupported(kind === "pg-restart")
    return undefined
  }
  for (const kind of faults) {
    const reason = why(kind)
    if (reason) reasons.set(kind, reason)
  }
  return reasons
}
