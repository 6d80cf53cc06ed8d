import { CHECKS, type Check } from "./check-file.js"
import type { TrialResult } from "./trial.js"
import type { TrialsSummary } from "./trials.js"

/** One line for a failed trial: enough to replay it (`--seed`) and to see what broke. */
export function failureLine(result: TrialResult): string {
  const byCheck = new Map<Check, string[]>()
  for (const { check, detail } of result.findings) byCheck.set(check, [...(byCheck.get(check) ?? []), detail])
  const details = [...byCheck].map(([check, found]) => {
    const more = found.length > 3 ? ` (+${found.length - 3} more)` : ""
    return `${CHECKS[check]}: ${found.slice(0, 3).join("; ")}${more}`
  })
  const kill = `kill=${result.killAtMs}ms after line ${result.lines} "${result.landed}"`
  return `FAIL seed=${result.seed} ${kill}: ${details.join(" | ")}`
}

/** Counts per check, where the kills landed, timing, and the closing `durability:` line. */
export function summaryLines(summary: TrialsSummary): string[] {
  const { results } = summary
  const failed = results.filter((result) => result.findings.length > 0).length
  const lines = (Object.keys(CHECKS) as Check[]).map(
    (check) =>
      `${CHECKS[check]}: ${results.filter((result) => result.findings.some((finding) => finding.check === check)).length}`,
  )
  lines.push("where the kill landed (the child's last line), trials / failed:")
  const landings = new Map<string, { trials: number; failed: number }>()
  for (const result of results) {
    const entry = landings.get(result.landed) ?? { trials: 0, failed: 0 }
    entry.trials++
    if (result.findings.length > 0) entry.failed++
    landings.set(result.landed, entry)
  }
  const width = Math.max(...[...landings.keys()].map((key) => key.length))
  for (const [landed, { trials, failed: bad }] of [...landings].sort((a, b) => b[1].trials - a[1].trials))
    lines.push(`  ${landed.padEnd(width)}  ${String(trials).padStart(4)} / ${bad}`)
  const seconds = summary.wallMs / 1000
  const perTrial = (seconds / Math.max(1, results.length)).toFixed(2)
  const run = summary.durationMs > 0 ? ` (child run ${summary.durationMs} ms)` : ""
  lines.push(
    `time: ${seconds.toFixed(1)} s, ${perTrial} s per trial with ${summary.parallel} in parallel${run}`,
  )
  if (failed > 0)
    lines.push(
      `replay a failed trial: --seed <its seed> --trials 1, with --duration ${summary.durationMs} (same time) or --kill-after-line <its line> (same progress)`,
    )
  lines.push(`durability: ${results.length - failed} passed, ${failed} failed`)
  return lines
}
