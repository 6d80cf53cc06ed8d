export { SnapshotUnavailableError } from "../errors.js"
export { SnapshotDataDirError } from "./data-dir-error.js"
export { GitCommandError } from "./git-command-error.js"
export { GitSnapshot, type GitSnapshotOptions } from "./git-snapshot.js"
