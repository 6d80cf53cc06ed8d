import path from "node:path"
import type { Snapshot } from "../snapshot/port.js"
import type { Turn } from "./turn.js"

/** The state a model call starts from: the one the caller gave (see CreateInput.snapshotFrom), else a scan. */
export function callStart(turn: Turn): Promise<string | undefined> {
  const given = turn.snapshotFrom
  turn.snapshotFrom = undefined
  return given ? Promise.resolve(given) : track(turn)
}

/** Where a later step of the same call starts: where the step before it ended, else a scan. */
export function laterStepStart(turn: Turn): Promise<string | undefined> {
  return turn.lastStepEnd ? Promise.resolve(turn.lastStepEnd) : track(turn)
}

/**
 * The state at a step's end and what the step changed. When every tool the step ran said which
 * files it changes, only those are read again (Snapshot.Known); otherwise the tree is scanned.
 * The patch compares the step's start with the state just recorded, which is the current one.
 */
export async function stepEnd(turn: Turn): Promise<{ snapshot?: string; patch?: Snapshot.Patch }> {
  const { snapshot, stepSnapshot: start, stepChanges } = turn
  turn.stepChanges = new Set()
  if (!snapshot) return {}
  const after = await track(
    turn,
    start && stepChanges ? { from: start, changed: [...stepChanges] } : undefined,
  )
  turn.lastStepEnd = after
  if (!start) return after ? { snapshot: after } : {}
  const now = after ? snapshot.patch(start, { from: after, changed: [] }) : snapshot.patch(start)
  const patch = await now.catch(() => undefined)
  return { ...(after ? { snapshot: after } : {}), ...(patch ? { patch } : {}) }
}

/** Notes a file a tool of the step is about to change (see Context.willChange). */
export function willChange(turn: Turn, file: string): void {
  turn.stepChanges?.add(path.resolve(turn.message.path.cwd, file))
}

/** A Snapshot that fails costs the step its patch, not the turn. */
export function track(turn: Turn, known?: Snapshot.Known): Promise<string | undefined> {
  if (!turn.snapshot) return Promise.resolve(undefined)
  return (known ? turn.snapshot.track(known) : turn.snapshot.track()).catch(() => undefined)
}
