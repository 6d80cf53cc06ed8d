import { createRuntime, type Runtime } from "../index.js"
import { GitSnapshot } from "../snapshot/git/index.js"
import { type CodingPreset, codingPreset, SandboxUnavailableError } from "../tools/index.js"
import type { Env } from "./args.js"
import { modelFromEnvironment } from "./env-model.js"

/**
 * What `agentloop-sdk serve` runs without a module: the coding preset in `directory`, its bash
 * and file tools in the sandbox (docs/sandbox.md) when it can start, on the model the
 * environment names, with the question tool for the terminal UI to answer, and a git snapshot
 * of the directory, so that the UI shows diffs and undoes changes. Sessions live in memory, for
 * as long as the process runs. `warning` says why the tools are not sandboxed, when they are not.
 */
export async function codingRuntime(
  directory: string,
  env: Env,
): Promise<{ runtime: Runtime; label: string; warning?: string }> {
  const { model, label } = await modelFromEnvironment(env)
  const snapshot = new GitSnapshot({ directory })
  const { preset, warning } = sandboxedPreset(directory)
  const runtime = createRuntime({ model, ...preset, question: true, snapshot })
  const where = warning ? "" : " with bash in a sandbox (writes only in the directory, no network),"
  return {
    runtime,
    label: `the coding agent in ${directory}, on ${label},${where}`,
    ...(warning ? { warning } : {}),
  }
}

/** The coding preset in the sandbox, or, when the sandbox cannot start here, without it and why. */
function sandboxedPreset(directory: string): { preset: CodingPreset; warning?: string } {
  try {
    return { preset: codingPreset({ directory, sandbox: true }) }
  } catch (error) {
    if (!SandboxUnavailableError.isInstance(error)) throw error
    return {
      preset: codingPreset({ directory }),
      // The error's message says what is missing, then how to fix it: one line here.
      warning:
        `Warning: bash is not sandboxed: the agent's shell commands run as you, with your permissions. ` +
        error.message.replace(/\s*\n\s*/g, " "),
    }
  }
}
