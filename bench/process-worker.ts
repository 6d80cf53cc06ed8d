// One worker of bench/processes.ts: a runtime on PostgreSQL or SQLite that runs SESSIONS
// sessions at once, each one prompt of STEPS steps (tool calls, then an answer), when told "go",
// after a warm-up prompt in as many sessions of its own.
import { createInterface } from "node:readline"
import { loadPostgres, sqlite } from "./package.js"
import { workRuntime } from "./work-runtime.js"

const { SqliteStorage } = sqlite

const sessions = Number(process.env.SESSIONS)
const steps = Number(process.env.STEPS)
const storage =
  process.env.STORAGE === "postgres"
    ? new (await loadPostgres()).PostgresStorage(
        { connectionString: process.env.URL, max: sessions + 2 },
        { schema: "bench_processes" },
      )
    : new SqliteStorage(process.env.FILE!)

const runtime = workRuntime(storage, steps)
const ids = await Promise.all(Array.from({ length: sessions }, () => runtime.session.create({})))
// A first prompt in sessions of their own, before "ready": the measured run finds connections
// open, statements prepared and the code compiled, so it measures steps, not start-up.
const warm = await Promise.all(Array.from({ length: sessions }, () => runtime.session.create({})))
await Promise.all(
  warm.map((session) =>
    runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] }),
  ),
)
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
