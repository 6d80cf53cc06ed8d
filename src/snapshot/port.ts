import type { DataPath } from "../tool/data-path.js"
import type { FileDiff as FileDiffType } from "./schema.js"

/**
 * Records the state of the working tree so that each step's file changes can be shown and
 * undone. The git adapter lives in `agentloop-sdk/snapshot/git`; a host can supply its own.
 * Paths are relative to the tracked directory, with `/` separators.
 */
export interface Snapshot {
  /**
   * Records the current state; returns its hash, or undefined when nothing can be tracked (no
   * `git`, a directory it cannot write to): sessions then go on without patches. With `known`,
   * the caller vouches that the files differ from the state `known.from` at most in
   * `known.changed`, so the tree need not be scanned; an implementation may ignore it.
   */
  track(known?: Snapshot.Known): Promise<string | undefined>
  /**
   * The files changed between the state `hash` and the current one; `hash` is returned as given.
   * `known` says what the current state is, as for `track`; an implementation may ignore it.
   */
  patch(hash: string, known?: Snapshot.Known): Promise<Snapshot.Patch>
  /** What changed from `from` to `to` (the current state when absent), file by file. */
  diff(from: string, to?: string): Promise<Snapshot.FileDiff[]>
  /** Puts every file recorded in `hash` back as it was; files it did not record are left alone. */
  restore(hash: string): Promise<void>
  /**
   * Puts the files of each patch back as they were at its hash, the first patch naming a file
   * winning; a file that did not exist at that hash is deleted.
   */
  revert(patches: readonly Snapshot.Patch[]): Promise<void>
  /**
   * Where this snapshot keeps its data on the host (GitSnapshot: its data dir). The runtime
   * keeps the coding tools and their commands away from them (see `DataPath`); none when absent.
   */
  readonly dataPaths?: readonly DataPath[]
}

export declare namespace Snapshot {
  /**
   * What the caller knows of the current state: it is the recorded state `from` except, at
   * most, for the files in `changed` (absolute paths, or relative to the tracked directory;
   * a directory stands for all it holds). Naming a file that did not change is harmless; leaving
   * out one that did makes the recorded state miss it.
   */
  type Known = { from: string; changed: readonly string[] }
  /** The files one step changed, and the state before it. */
  type Patch = { hash: string; files: string[] }
  /** What one file looked like before and after a change (empty text for binary files). */
  type FileDiff = FileDiffType
}
