export { SnapshotUnavailableError } from "../errors.js"
export { GitCommandError } from "./git-command-error.js"
export { GitSnapshot, type GitSnapshotOptions } from "./git-snapshot.js"
