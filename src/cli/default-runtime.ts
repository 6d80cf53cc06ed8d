import { createRuntime, type Runtime } from "../index.js"
import { GitSnapshot } from "../snapshot/git/index.js"
import { codingPreset } from "../tools/index.js"
import type { Env } from "./args.js"
import { modelFromEnvironment } from "./env-model.js"

/**
 * What `agentloop-sdk serve` runs without a module: the coding preset in `directory`, on the model
 * the environment names, with the question tool for the terminal UI to answer, and a git
 * snapshot of the directory, so that the UI shows diffs and undoes changes. Sessions live in
 * memory, for as long as the process runs.
 */
export async function codingRuntime(
  directory: string,
  env: Env,
): Promise<{ runtime: Runtime; label: string }> {
  const { model, label } = await modelFromEnvironment(env)
  const snapshot = new GitSnapshot({ directory })
  const runtime = createRuntime({ model, ...codingPreset({ directory }), question: true, snapshot })
  return { runtime, label: `the coding agent in ${directory}, on ${label},` }
}
