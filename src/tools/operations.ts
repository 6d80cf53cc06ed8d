import type { DataPath } from "../tool/data-path.js"

/**
 * Where the coding tools act: files and processes. The tools resolve paths, check permissions
 * and format output themselves, and do the work through this port, so a host can point them at
 * a sandbox, a container or a remote machine. Paths given to it are absolute and already
 * resolved by the tool.
 */
export interface Operations {
  /** The file's bytes; rejects when it does not exist or is not a file. */
  readFile(path: string, options?: { signal?: AbortSignal }): Promise<Uint8Array>
  /** Writes the file, creating missing parent directories. */
  writeFile(path: string, data: Uint8Array | string, options?: { signal?: AbortSignal }): Promise<void>
  /**
   * Removes the file at the path: a symlink there is removed itself, not what it points to; a
   * directory is refused. Rejects when nothing is there. Optional, so that ports written before it
   * still fit: without it, `apply_patch` refuses to delete or move a file (PatchFailedError
   * "remove-unsupported") before changing anything.
   */
  remove?(path: string, options?: { signal?: AbortSignal }): Promise<void>
  /** What is at the path (symlinks followed), or undefined when nothing is. */
  stat(path: string): Promise<FileStat | undefined>
  /** The path with every symlink resolved, as far as it exists. */
  realpath(path: string): Promise<string>
  /** The entries of a directory (not recursive). */
  list(path: string, options?: { signal?: AbortSignal }): Promise<DirectoryEntry[]>
  /**
   * Files under `cwd` matching the glob `pattern`, as paths relative to `cwd`, skipping what
   * `ignore` (globs) names; at most `limit`.
   */
  glob(
    pattern: string,
    options: { cwd: string; ignore?: string[]; limit?: number; signal?: AbortSignal },
  ): Promise<string[]>
  /**
   * Runs a shell command in `cwd`. Output (stdout and stderr interleaved) goes to `onData` as it
   * arrives. On abort or after `timeoutMs` the whole process tree is killed and the promise
   * resolves with `aborted` or `timedOut` set.
   */
  exec(command: string, options: ExecOptions): Promise<ExecResult>
}

/** What `Operations.stat` reports about a path, symlinks followed: its type, size in bytes and last modification time. */
export type FileStat = { type: "file" | "directory" | "other"; size: number; mtimeMs: number }
/** One entry of `Operations.list`: its name within the directory and its type (a symlink is not followed). */
export type DirectoryEntry = { name: string; type: "file" | "directory" | "symlink" | "other" }

/** How `Operations.exec` runs a command. */
export type ExecOptions = {
  /** The directory the command runs in. */
  cwd: string
  /** Aborting it kills the command and everything it started; `exec` then resolves with `aborted`. */
  signal: AbortSignal
  /** When given, the command and everything it started are killed after this long; `exec` then resolves with `timedOut`. */
  timeoutMs?: number
  /** Variables to set for the command (`localExec` adds them to the process's environment). */
  env?: Record<string, string>
  /** Gets stdout and stderr, interleaved, as they arrive. */
  onData(chunk: string): void
  /**
   * Host paths the command must not reach: where the runtime's ports keep their data
   * (`Tool.Context.protectedPaths`). `sandboxOperations` hides them from the command and keeps
   * missing ones from being made; `localExec` confines nothing and ignores them.
   */
  protectedPaths?: readonly DataPath[]
}
/**
 * How a command run by `Operations.exec` ended: its exit code (null when a signal ended it), and
 * whether the timeout or the abort signal stopped it. A command that fails still resolves; `exec`
 * rejects only when the command could not be run at all.
 */
export type ExecResult = { exitCode: number | null; timedOut: boolean; aborted: boolean }
