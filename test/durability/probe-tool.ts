import { z } from "zod"
import { type Permission, Tool } from "../../src/index.js"

/** Every probe call asks, so the ones whose input says `ask` wait on a stored permission request. */
export const probeRules: Permission.Ruleset = [{ permission: "probe", pattern: "*", action: "ask" }]

/**
 * The tool of the trial: a little async work that honours its abort signal, sometimes behind a
 * permission request. The checking runtime registers it too, so a run resumed there can call it.
 */
export const probeTool = Tool.define("probe", {
  description: "Probes a target and reports whether it is fine",
  parameters: z.object({ target: z.string(), ask: z.boolean(), workMs: z.number().int().nonnegative() }),
  async execute({ target, ask, workMs }, context) {
    if (ask) await context.ask({ permission: "probe", patterns: [target] })
    await sleep(workMs, context.abort)
    return { title: target, output: `${target}: fine`, metadata: { workMs } }
  },
})

/** A pause that ends early, rejecting, when `signal` aborts (nothing waits past a cancel). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
