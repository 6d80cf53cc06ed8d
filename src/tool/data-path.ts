/**
 * A host path where a port keeps its own data: a snapshot's git dir, a database file. The runtime
 * gathers them (`Snapshot.dataPaths`, `Storage.dataPaths`) and gives them to every tool call as
 * `Tool.Context.protectedPaths`: the built-in coding tools neither read nor change them, and
 * `sandboxOperations` hides them from commands, so an agent cannot rewrite its own history or
 * approvals. `kind` is what the path is, or will be once the port makes it.
 */
export type DataPath = { path: string; kind: "file" | "directory" }
