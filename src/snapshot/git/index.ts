/**
 * The Snapshot port over git (`GitSnapshot`): records the tracked directory at each step and
 * reverts files, in a git dir of its own. See docs/snapshot.md.
 *
 * @module agentloop-sdk/snapshot/git
 */
export { SnapshotUnavailableError } from "../errors.js"
export { SnapshotDataDirError } from "./data-dir-error.js"
export { GitCommandError } from "./git-command-error.js"
export { GitSnapshot, type GitSnapshotOptions } from "./git-snapshot.js"
