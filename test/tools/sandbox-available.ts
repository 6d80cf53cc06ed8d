import { tmpdir } from "node:os"
import { SandboxUnavailableError, sandboxOperations } from "../../src/tools/sandbox/index.js"

/** Why the sandbox cannot start on this machine (no bubblewrap, no user namespaces…), or undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  try {
    sandboxOperations({ directory: tmpdir() })
    return undefined
  } catch (error) {
    if (SandboxUnavailableError.isInstance(error)) return error.message
    throw error
  }
}

/**
 * Whether to skip tests of `what` that need the sandbox: when it cannot start here, they are
 * skipped with a warning, except in CI, which installs bubblewrap, where they run and fail.
 */
export function skipWithoutSandbox(what: string): boolean {
  const reason = sandboxUnavailable()
  if (reason === undefined || process.env.CI) return false
  console.warn(`SKIPPED: ${what}: ${reason}`)
  return true
}
