/**
 * The loop's work over the session's history in CPU profiles of loop runs (bench/loop-profile.ts):
 * time inside each function that reads, compares or copies the history at every step, what it
 * calls included. Run at 10 and at 1,000 steps, a function whose time per step grows with the
 * steps is one whose cost follows the session's length.
 */
import type { Frame, Profile } from "./cpu-profile.js"
import { printTable } from "./report.js"

/** Each function by its name and the source file it is in; an anonymous one by its file alone. */
const HISTORY_FUNCTIONS: { name: string; file: string }[] = [
  { name: "runSteps", file: "src/loop/steps.ts" },
  { name: "visible", file: "src/loop/run-history.ts" },
  { name: "latestUser", file: "src/loop/run-history.ts" },
  { name: "filterCompacted", file: "src/message/filter-compacted.ts" },
  { name: "pendingSubtasks", file: "src/loop/subtask.ts" },
  { name: "finishedSinceCompaction", file: "src/loop/exit-rule.ts" },
  { name: "turnToolParts", file: "src/loop/exit-rule.ts" },
  { name: "structuredVerdict", file: "src/loop/structured-output.ts" },
  { name: "", file: "src/loop/prompt-cache.ts" },
  { name: "promptBody", file: "src/provider-call/provider-stream.ts" },
  { name: "extendBody", file: "src/provider-call/prompt.ts" },
  { name: "assemblePrompt", file: "src/provider-call/prompt.ts" },
  { name: "startsWith", file: "src/util/starts-with.ts" },
]

const label = ({ name, file }: { name: string; file: string }) => `${name || "(anonymous)"} ${file}`

function matching(frame: Frame): string | undefined {
  const found = HISTORY_FUNCTIONS.find(
    ({ name, file }) =>
      frame.url.endsWith(file) && (name === "" ? frame.functionName === "" : frame.functionName === name),
  )
  return found && label(found)
}

/**
 * Prints ms per step inside each of HISTORY_FUNCTIONS (each sample counted once per function).
 * A sample counts as the profile's median interval between samples, not its own: on a busy
 * machine the process waits now and then for a core, and the sample taken after such a wait
 * would count the whole wait, which swamps functions this short.
 */
export function printHistoryWork(profiles: Profile[], steps: number): void {
  const inside = new Map<string, number>()
  for (const profile of profiles) {
    const parent = new Map<number, number>()
    const byID = new Map(profile.nodes.map((node) => [node.id, node]))
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
    const intervals = profile.timeDeltas.slice(1).sort((a, b) => a - b)
    const ms = (intervals[intervals.length >> 1] ?? 0) / 1000
    for (const sample of profile.samples) {
      const seen = new Set<string>()
      for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
        const name = matching(byID.get(id)!.callFrame)
        if (name !== undefined && !seen.has(name)) {
          seen.add(name)
          inside.set(name, (inside.get(name) ?? 0) + ms)
        }
      }
    }
  }
  console.log(
    "\nWork over the history (samples inside, what it calls included, times the median interval; ms per step):",
  )
  printTable(
    ["function", "ms/step"],
    HISTORY_FUNCTIONS.map(label).map((name) => [name, ((inside.get(name) ?? 0) / steps).toFixed(4)]),
  )
}
