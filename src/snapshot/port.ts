/**
 * Records the state of the working tree so that each step's file changes can be shown and
 * undone. The git adapter lives in `agentloop-sdk/snapshot/git`; a host can supply its own.
 */
export interface Snapshot {
  /** Records the current state; returns its hash, or undefined when nothing can be tracked. */
  track(): Promise<string | undefined>
  /** The files changed since the state `hash`, and the hash of the current state. */
  patch(hash: string): Promise<{ hash: string; files: string[] }>
}
