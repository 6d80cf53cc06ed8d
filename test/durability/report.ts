import { CHECKS, type Check } from "./check-storage.js"
import { FAULT_KINDS, type FaultKind } from "./plan.js"
import type { TrialResult } from "./trial.js"
import type { TrialsSummary } from "./trials.js"

/** How the report names each fault. */
export const FAULT_NAMES: Record<FaultKind, string> = {
  kill: "kill -9",
  busy: "busy lock (a second process)",
  full: "disk full (a real tmpfs)",
  "pg-terminate": "PostgreSQL backends terminated",
  "pg-restart": "PostgreSQL server restarted",
}

/** One line for a failed trial: enough to replay it (`--seed`) and to see what broke. */
export function failureLine(result: TrialResult): string {
  const byCheck = new Map<Check, string[]>()
  for (const { check, detail } of result.findings) byCheck.set(check, [...(byCheck.get(check) ?? []), detail])
  const details = [...byCheck].map(([check, found]) => {
    const more = found.length > 3 ? ` (+${found.length - 3} more)` : ""
    return `${CHECKS[check]}: ${found.slice(0, 3).join("; ")}${more}`
  })
  const at = `${result.fault === "kill" ? "kill" : `${result.fault} at`}=${result.killAtMs}ms`
  const on = result.drivers ? ` child on ${result.drivers.child}, checked on ${result.drivers.parent}` : ""
  return `FAIL seed=${result.seed} ${at}${on} after line ${result.lines} "${result.landed}": ${details.join(" | ")}`
}

/** A loud line per fault that cannot run here. */
export function skippedLines(unsupported: TrialsSummary["unsupported"]): string[] {
  return [...unsupported].map(
    ([kind, why]) => `*** SKIPPED: the ${FAULT_NAMES[kind]} trials (${kind}): ${why} ***`,
  )
}

/** Counts per check and per fault, where the kills and faults landed, timing, and the closing `durability:` line. */
export function summaryLines(summary: TrialsSummary): string[] {
  const ran = summary.results.filter((result) => result.skipped === undefined)
  const skipped = summary.results.length - ran.length
  const failed = ran.filter((result) => result.findings.length > 0).length
  const lines = (Object.keys(CHECKS) as Check[]).map(
    (check) =>
      `${CHECKS[check]}: ${ran.filter((result) => result.findings.some((finding) => finding.check === check)).length}`,
  )
  lines.push("faults, trials / failed:", ...faultRows(summary))
  lines.push("the child's SQLite driver (the parent locked and checked with the other), trials / failed:")
  lines.push(
    ...table(
      ran.flatMap((result) =>
        result.drivers ? [[result.drivers.child, result.findings.length > 0] as [string, boolean]] : [],
      ),
    ),
  )
  lines.push("where the kill or fault landed (for a kill, after the child's last line), trials / failed:")
  lines.push(...table(ran.map((result) => [result.landed, result.findings.length > 0])))
  const seconds = summary.wallMs / 1000
  const perTrial = (seconds / Math.max(1, ran.length)).toFixed(2)
  const run = summary.durationMs > 0 ? ` (child run ${summary.durationMs} ms)` : ""
  lines.push(
    `time: ${seconds.toFixed(1)} s, ${perTrial} s per trial with ${summary.parallel} in parallel${run}`,
  )
  if (failed > 0)
    lines.push(
      `replay a failed trial: --seed <its seed> --trials 1 --drivers ${summary.drivers.join(",")}, with --duration ${summary.durationMs} (same time) or --kill-after-line <its line> (same progress)`,
    )
  lines.push(...skippedLines(summary.unsupported))
  const skips = skipped > 0 ? `, ${skipped} SKIPPED (their fault cannot run here)` : ""
  lines.push(`durability: ${ran.length - failed} passed, ${failed} failed${skips}`)
  return lines
}

/** Per fault: its trials, how the child met it, and how many failed. */
function faultRows(summary: TrialsSummary): string[] {
  const rows: [string, number, number][] = []
  for (const kind of FAULT_KINDS) {
    const of = summary.results.filter((result) => result.fault === kind)
    if (of.length === 0) continue
    const bad = of.filter((result) => result.findings.length > 0).length
    const why = summary.unsupported.get(kind)
    const detail = why
      ? `SKIPPED: ${why}`
      : kind === "kill"
        ? `the next runtime went on with loop() in ${of.filter((result) => result.resume === "loop").length}`
        : `a turn failed under it in ${of.filter((result) => result.failedTurns > 0).length}`
    rows.push([`${FAULT_NAMES[kind]}: ${detail}`, of.length, bad])
  }
  return aligned(rows)
}

/** Rows counted by label, most frequent first. */
function table(entries: [string, boolean][]): string[] {
  const counts = new Map<string, { trials: number; failed: number }>()
  for (const [label, bad] of entries) {
    const entry = counts.get(label) ?? { trials: 0, failed: 0 }
    entry.trials++
    if (bad) entry.failed++
    counts.set(label, entry)
  }
  const sorted = [...counts].sort((a, b) => b[1].trials - a[1].trials)
  return aligned(sorted.map(([label, { trials, failed }]) => [label, trials, failed]))
}

function aligned(rows: [string, number, number][]): string[] {
  const width = Math.max(0, ...rows.map(([label]) => label.length))
  return rows.map(
    ([label, trials, bad]) => `  ${label.padEnd(width)}  ${String(trials).padStart(4)} / ${bad}`,
  )
}
