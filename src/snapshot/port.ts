import type { FileDiff as FileDiffType } from "./schema.js"

/**
 * Records the state of the working tree so that each step's file changes can be shown and
 * undone. The git adapter lives in `agentloop-sdk/snapshot/git`; a host can supply its own.
 * Paths are relative to the tracked directory, with `/` separators.
 */
export interface Snapshot {
  /**
   * Records the current state; returns its hash, or undefined when nothing can be tracked (no
   * `git`, a directory it cannot write to): sessions then go on without patches.
   */
  track(): Promise<string | undefined>
  /** The files changed between the state `hash` and the current one; `hash` is returned as given. */
  patch(hash: string): Promise<Snapshot.Patch>
  /** What changed from `from` to `to` (the current state when absent), file by file. */
  diff(from: string, to?: string): Promise<Snapshot.FileDiff[]>
  /** Puts every file recorded in `hash` back as it was; files it did not record are left alone. */
  restore(hash: string): Promise<void>
  /**
   * Puts the files of each patch back as they were at its hash, the first patch naming a file
   * winning; a file that did not exist at that hash is deleted.
   */
  revert(patches: readonly Snapshot.Patch[]): Promise<void>
}

export declare namespace Snapshot {
  /** The files one step changed, and the state before it. */
  type Patch = { hash: string; files: string[] }
  /** What one file looked like before and after a change (empty text for binary files). */
  type FileDiff = FileDiffType
}
