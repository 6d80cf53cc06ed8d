import { chownSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SandboxUnavailableError, sandboxOperations } from "../../src/tools/sandbox/index.js"

/** The ordinary user tests running as root give a sandbox's directory to: its commands run as the owner. */
export const SANDBOX_OWNER = 65534

/**
 * Gives `directory` to an ordinary user when the tests run as root, as the sandbox wants of a
 * root agent's directory (a root-owned one fails with reason "root"). Returns `directory`.
 */
export function ownedForSandbox(directory: string): string {
  if (process.getuid?.() === 0) chownSync(directory, SANDBOX_OWNER, SANDBOX_OWNER)
  return directory
}

/** Why the sandbox cannot start on this machine (no bubblewrap, no user namespaces…), or undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  const directory = ownedForSandbox(mkdtempSync(join(tmpdir(), "agentloop-sandbox-probe-")))
  try {
    sandboxOperations({ directory })
    return undefined
  } catch (error) {
    if (SandboxUnavailableError.isInstance(error)) return error.message
    throw error
  } finally {
    rmSync(directory, { recursive: true, force: true })
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
