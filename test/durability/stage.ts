import { join } from "node:path"
import type { SqliteDriver } from "../../src/storage/sqlite/index.js"
import type { Acks } from "./acks.js"
import { holdWriteLock } from "./busy-lock.js"
import { checkFile } from "./check-file.js"
import type { Finding } from "./check-storage.js"
import type { ChildWatch } from "./child-watch.js"
import type { FaultKind, RunPlan } from "./plan.js"

/**
 * A trial's fault set up around its child: where the child stores, what this process does while
 * the child runs, how what it left is checked, and what is torn down afterwards.
 */
export type Stage = {
  /** The child's arguments after its seed: `<dbfile> <driver>`, or `<postgres URL> <schema>`. */
  args: string[]
  /** Whether the child is killed at the trial's kill point; else it runs to its end. */
  kills: boolean
  /** The fault, timed from the child's start; resolves once it is over. */
  apply(watch: ChildWatch): Promise<void>
  /** Where the fault landed, for the report (`last`: the child's last line, for kills). */
  landed(killed: boolean, acks: Acks): string
  check(acks: Acks, plan: RunPlan): Promise<Finding[]>
  dispose(): Promise<void>
}

const FINISHED = "child finished before the kill"
/** A child that is not killed must still finish: no trial may hang the run. */
export const CHILD_DEADLINE_MS = 60_000

/**
 * The SQLite drivers of a trial: the child's, and the one this process locks and checks the file
 * with (the other driver where there are two, so every trial also reads one driver's file through
 * the other).
 */
export type TrialDrivers = { child: SqliteDriver; parent: SqliteDriver }

/** A kill -9, or ("busy") another process holding the file's write lock: SQLite in `directory`. */
export function sqliteStage(directory: string, plan: RunPlan, atMs: number, drivers: TrialDrivers): Stage {
  const file = join(directory, "agentloop.db")
  const { fault } = plan
  return {
    args: [file, drivers.child],
    kills: fault.kind === "kill",
    apply: async () => {
      if (fault.kind === "busy")
        await holdWriteLock(file, drivers.parent, {
          atMs,
          holdMs: fault.holdMs,
          deadlineMs: CHILD_DEADLINE_MS,
        })
    },
    landed: (killed, acks) => {
      if (fault.kind === "busy")
        return `busy lock, ${acks.faults.length > 0 ? "past the retry bound: the child went on with loop()" : "within the retry bound"}`
      return killed ? `kill after ${acks.last}` : FINISHED
    },
    check: (acks, checked) => checkFile(file, acks, checked, drivers.parent),
    dispose: async () => {},
  }
}

/** The reason of the StorageError each fault stands for (a kill leaves the child no time for one). */
const REASONS: Record<FaultKind, string | undefined> = {
  kill: undefined,
  busy: "busy",
  full: "full",
  "pg-terminate": "connection",
  "pg-restart": "connection",
}

/** The faults the child met under another reason than the trial's fault. */
export function misnamedFaults(acks: Acks, kind: FaultKind): Finding[] {
  const expected = REASONS[kind]
  const counts = new Map<string, number>()
  for (const reason of acks.faults) if (reason !== expected) counts.set(reason, (counts.get(reason) ?? 0) + 1)
  return [...counts].map(([reason, count]) => ({
    check: "named" as const,
    detail: `a ${kind} fault gave ${count} StorageError(s) of reason ${reason}, not ${expected ?? "none"}`,
  }))
}
