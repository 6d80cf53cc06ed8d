/**
 * What a step costs PostgreSQL in statements: one runtime on PostgresStorage (a throwaway cluster,
 * or AGENTLOOP_PG_URL) runs a prompt of STEPS tool steps on a scripted model after a warm-up
 * prompt, and every statement its pg clients sent during the second prompt is counted by text.
 *
 *   npx tsx bench/pg-statements.ts            # with the coordinator
 *   COORDINATOR=off npx tsx bench/pg-statements.ts
 *   SESSIONS=5 npx tsx bench/pg-statements.ts   # five sessions at once, as a process of the processes bench runs
 */
import pg from "pg"
import { loadPostgres } from "./package.js"
import { benchPostgres } from "./postgres.js"
import { printTable } from "./report.js"
import { workRuntime } from "./work-runtime.js"

const STEPS = 20
/** Sessions prompted at once: with more than one, a process's concurrent writes can share statements. */
const SESSIONS = Number(process.env.SESSIONS ?? 1)
const counts = new Map<string, number>()

type Query = (this: pg.Client, ...args: unknown[]) => unknown
const query = pg.Client.prototype.query as unknown as Query
const counting: Query = function (this: pg.Client, ...args) {
  const first = args[0] as string | { text?: string; name?: string } | undefined
  const text = typeof first === "string" ? first : (first?.text ?? first?.name ?? "(unnamed)")
  const key = text.replace(/\s+/g, " ").trim().slice(0, 100)
  counts.set(key, (counts.get(key) ?? 0) + 1)
  return query.apply(this, args)
}
;(pg.Client.prototype as unknown as { query: Query }).query = counting

const postgres = await benchPostgres()
if (!postgres) process.exit(0)
const storage = new (await loadPostgres()).PostgresStorage(
  { connectionString: postgres.url, max: SESSIONS + 2 },
  { schema: "bench_statements" },
)
const runtime = workRuntime(storage, STEPS)
try {
  const prompt = () =>
    Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const session = await runtime.session.create({})
        await runtime.session.prompt({ sessionID: session.id, parts: [{ type: "text", text: "go" }] })
      }),
    )
  await prompt()
  counts.clear()
  await prompt()
  // The prompt's last batch of events goes out after it returns.
  await new Promise((resolve) => setTimeout(resolve, 50))
  const rows = [...counts].sort((a, b) => b[1] - a[1])
  const total = rows.reduce((sum, [, count]) => sum + count, 0)
  console.log(
    `PostgreSQL statements of ${SESSIONS} ${STEPS}-step prompt(s) at once (coordinator ${process.env.COORDINATOR === "off" ? "off" : "on"}): ` +
      `${total}, ${(total / STEPS / SESSIONS).toFixed(2)} a step\n`,
  )
  printTable(
    ["statement", "count"],
    rows.map(([text, count]) => [text, String(count)]),
  )
} finally {
  await runtime.close()
  postgres.stop()
}
