import pg from "pg"
import { PostgresStorage } from "../src/storage/postgres/index.js"
import { queries } from "../src/storage/postgres/queries.js"
import { findPostgres, startCluster } from "../test/setup/pg-cluster.js"
import { median, printTable } from "./report.js"

/**
 * A PostgreSQL URL for a bench: AGENTLOOP_PG_URL when set, else a throwaway local cluster
 * (stopped by the returned function); undefined, with a note, when there is neither.
 */
export async function benchPostgres(): Promise<{ url: string; stop(): void } | undefined> {
  if (process.env.AGENTLOOP_PG_URL) return { url: process.env.AGENTLOOP_PG_URL, stop: () => {} }
  const bin = findPostgres()
  if (!bin) {
    console.log("PostgreSQL: skipped (no AGENTLOOP_PG_URL and no initdb found)\n")
    return undefined
  }
  return startCluster(bin)
}

/** Reads every row of a statement as arrays and drops them: the server's work and the transfer. */
async function wire(client: pg.ClientBase, text: string, sessionID: string): Promise<number> {
  const start = performance.now()
  let rows = 0
  await new Promise<void>((resolve, reject) => {
    const config: pg.QueryArrayConfig = { text, values: [sessionID], rowMode: "array" }
    const query = client.query(new pg.Query(config))
    query.on("row", () => {
      rows++
    })
    query.on("error", reject)
    query.on("end", () => resolve())
  })
  if (rows === 0) throw new Error("profilePostgresLoad: the listing read no rows")
  return performance.now() - start
}

/**
 * Where a PostgreSQL load spends its time, in turns (median of `loads`): the listing statement's
 * rows read and dropped (server, wire, pg's row parsing), the same with the ORDER BY the listing
 * had before (the server sorts 14 MiB first), and a whole `listMessages` (adding JSON.parse,
 * assembling and ordering).
 */
export async function profilePostgresLoad(url: string, schema: string, sessionID: string, loads: number) {
  const listing = queries(schema).listMessages
  const sorted = `${listing} ORDER BY message_id, kind, id`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const storage = new PostgresStorage({ connectionString: url }, { schema })
  const times = { wire: [] as number[], sorted: [] as number[], load: [] as number[] }
  try {
    for (let run = 0; run < loads; run++) {
      times.wire.push(await wire(client, listing, sessionID))
      times.sorted.push(await wire(client, sorted, sessionID))
      const start = performance.now()
      await storage.listMessages(sessionID)
      times.load.push(performance.now() - start)
    }
  } finally {
    await client.end()
    await storage.close()
  }
  const ms = (values: number[]) => median(values).toFixed(1)
  console.log("PostgreSQL load, by phase (median, in turns):")
  printTable(
    ["phase", "ms"],
    [
      ["listing rows read and dropped (server, transfer, pg's row parsing)", ms(times.wire)],
      ["the same sorted on the server (the listing before: ORDER BY)", ms(times.sorted)],
      ["listMessages (rows, JSON.parse, assembling, order check)", ms(times.load)],
    ],
  )
  console.log()
}
