import { z } from "zod"
import type { Storage } from "../src/index.js"
import { agentloop, testing } from "./package.js"
import { BENCH_MODEL } from "./report.js"

const { createProvider, createRuntime, Tool } = agentloop
const { say, scriptedModel } = testing

/**
 * A runtime on `storage` whose scripted model answers every prompt with `steps - 1` calls of a
 * `work` tool (a short result each), then a text; without the coordinator when COORDINATOR=off.
 * bench/processes.ts's workers and bench/pg-statements.ts run it.
 */
export function workRuntime(storage: Storage, steps: number) {
  const model = scriptedModel([], {
    fallback: (call) => {
      const done = call.prompt.filter((message) => message.role === "tool").length
      return done + 1 >= steps ? [say.text("done")] : [say.toolCall("work", { n: done })]
    },
  })
  const ref = { providerID: BENCH_MODEL.providerID, modelID: BENCH_MODEL.id }
  const work = Tool.define("work", {
    description: "Does a step of work",
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ title: `step ${n}`, output: `step ${n} done`, metadata: {} }),
  })
  return createRuntime({
    provider: createProvider({ models: [{ ...ref, language: model, info: BENCH_MODEL }], default: ref }),
    storage,
    tools: [work],
    titles: false,
    ...(process.env.COORDINATOR === "off" ? { coordinator: false as const } : {}),
  })
}
