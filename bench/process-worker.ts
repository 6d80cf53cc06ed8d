// One worker of bench/processes.ts: a runtime on PostgreSQL or SQLite that runs SESSIONS
// sessions at once, each one prompt of STEPS steps (tool calls, then an answer), when told "go".
import { createInterface } from "node:readline"
import { z } from "zod"
import { agentloop, loadPostgres, sqlite, testing } from "./package.js"
import { BENCH_MODEL } from "./report.js"

const { createProvider, createRuntime, Tool } = agentloop
const { SqliteStorage } = sqlite
const { say, scriptedModel } = testing

const sessions = Number(process.env.SESSIONS)
const steps = Number(process.env.STEPS)
const storage =
  process.env.STORAGE === "postgres"
    ? new (await loadPostgres()).PostgresStorage(
        { connectionString: process.env.URL, max: sessions + 2 },
        { schema: "bench_processes" },
      )
    : new SqliteStorage(process.env.FILE!)

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
const runtime = createRuntime({
  provider: createProvider({ models: [{ ...ref, language: model, info: BENCH_MODEL }], default: ref }),
  storage,
  tools: [work],
  titles: false,
  ...(process.env.COORDINATOR === "off" ? { coordinator: false as const } : {}),
})
const ids = await Promise.all(Array.from({ length: sessions }, () => runtime.session.create({})))
process.stdout.write("ready\n")
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "go") continue
  await Promise.all(
    ids.map((session) =>
      runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] }),
    ),
  )
  process.stdout.write("done\n")
  break
}
await runtime.close()
// stdin is still open (the parent's pipe): leave now rather than wait for it.
process.exit(0)
