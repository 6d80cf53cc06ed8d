import { prepareChild } from "./launch.js"
import { measureDuration, runTrial, type TrialResult } from "./trial.js"

export type TrialsOptions = {
  trials: number
  /** The first trial's seed; trial i uses seed + i, so `--seed <its seed> --trials 1` replays it. */
  seed: number
  /** Children running at once. Default 2. */
  parallel?: number
  /** The child's run length kills are drawn over; measured when absent. */
  durationMs?: number
  /** Kill each child once it has printed this many lines instead (to replay a failed trial). */
  killAfterLine?: number
  onStart?: (start: { durationMs: number; bundled: boolean }) => void
  onResult?: (result: TrialResult) => void
}

export type TrialsSummary = {
  seed: number
  parallel: number
  durationMs: number
  results: TrialResult[]
  wallMs: number
}

/** Runs the kill -9 trials (see run.ts) and returns every trial's result, in seed order. */
export async function runTrials(options: TrialsOptions): Promise<TrialsSummary> {
  const started = performance.now()
  const parallel = Math.max(1, options.parallel ?? 2)
  const command = await prepareChild()
  try {
    // A replay by lines needs no kill times.
    const durationMs =
      options.durationMs ??
      (options.killAfterLine === undefined ? await measureDuration(command, options.seed, parallel) : 0)
    options.onStart?.({ durationMs, bundled: command.bundled })
    const results: TrialResult[] = []
    let next = 0
    const worker = async () => {
      for (let index = next++; index < options.trials; index = next++) {
        const result = await runTrial(
          command,
          (options.seed + index) >>> 0,
          durationMs,
          options.killAfterLine,
        )
        results[index] = result
        options.onResult?.(result)
      }
    }
    await Promise.all(Array.from({ length: Math.min(parallel, options.trials) }, worker))
    return { seed: options.seed, parallel, durationMs, results, wallMs: performance.now() - started }
  } finally {
    command.dispose()
  }
}
