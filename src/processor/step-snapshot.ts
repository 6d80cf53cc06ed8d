import path from "node:path"
import type { Snapshot } from "../snapshot/port.js"
import type { CallState } from "./call-state.js"

/** The state a model call starts from: the one the caller gave (see CreateInput.snapshotFrom), else a scan. */
export function callStart(state: CallState): Promise<string | undefined> {
  const given = state.snapshotFrom
  state.snapshotFrom = undefined
  return given ? Promise.resolve(given) : track(state)
}

/** Where a later step of the same call starts: where the step before it ended, else a scan. */
export function laterStepStart(state: CallState): Promise<string | undefined> {
  return state.lastStepEnd ? Promise.resolve(state.lastStepEnd) : track(state)
}

/**
 * The state at a step's end and what the step changed. When every tool the step ran said which
 * files it changes, only those are read again (Snapshot.Known); otherwise the tree is scanned.
 * The patch compares the step's start with the state just recorded, which is the current one.
 */
export async function stepEnd(state: CallState): Promise<{ snapshot?: string; patch?: Snapshot.Patch }> {
  const { snapshot, stepSnapshot: start, stepChanges } = state
  state.stepChanges = new Set()
  if (!snapshot) return {}
  const after = await track(
    state,
    start && stepChanges ? { from: start, changed: [...stepChanges] } : undefined,
  )
  state.lastStepEnd = after
  if (!start) return after ? { snapshot: after } : {}
  const now = after ? snapshot.patch(start, { from: after, changed: [] }) : snapshot.patch(start)
  const patch = await now.catch(() => undefined)
  return { ...(after ? { snapshot: after } : {}), ...(patch ? { patch } : {}) }
}

/** Notes a file a tool of the step is about to change (see Context.willChange). */
export function willChange(state: CallState, file: string): void {
  state.stepChanges?.add(path.resolve(state.message.path.cwd, file))
}

/** A Snapshot that fails costs the step its patch, not the turn. */
export function track(state: CallState, known?: Snapshot.Known): Promise<string | undefined> {
  if (!state.snapshot) return Promise.resolve(undefined)
  return (known ? state.snapshot.track(known) : state.snapshot.track()).catch(() => undefined)
}
