import type { ExecResult, Operations } from "../operations.js"

/** What a sandboxed port (`sandboxOperations`) says of itself: the writable directory, and whether the network is on. */
export type SandboxFacts = { directory: string; network: boolean }

/** The sandbox `operations` runs commands in, or undefined for a port that is not one. */
export function sandboxOf(operations: Operations): SandboxFacts | undefined {
  const sandbox = (operations as { sandbox?: Partial<SandboxFacts> }).sandbox
  if (typeof sandbox?.directory !== "string" || typeof sandbox.network !== "boolean") return undefined
  return { directory: sandbox.directory, network: sandbox.network }
}

/**
 * One line after a failed command's output saying what the sandbox refuses: its refusals read
 * as ordinary errors ("Read-only file system", "No such file or directory" for a home that is
 * not there, "Network is unreachable"), which a model would otherwise try to work around.
 */
export function sandboxNote(sandbox: SandboxFacts | undefined, result: ExecResult): string | undefined {
  if (!sandbox || result.exitCode === 0 || result.timedOut || result.aborted) return undefined
  const network = sandbox.network ? "" : "; the network is off"
  return `[sandbox: writes outside ${sandbox.directory} are refused${network}]`
}
