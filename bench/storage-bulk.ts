import type { Storage } from "../src/storage/port.js"
import { median, printTable } from "./report.js"
import { batches, type Fixture, ROWS } from "./storage-fixture.js"

/** A storage to write to: a fresh, empty one at each call. */
type Open = () => Promise<Storage>

/** Wall and this process's CPU time (ms). */
type Measured = { wall: number; cpu: number }

/** One bulk write of the fixture. */
async function bulkWrite(open: Open, fixture: Fixture): Promise<Measured> {
  const storage = await open()
  try {
    const writes = batches(fixture, "bulk")
    const cpu = process.cpuUsage()
    const started = performance.now()
    for (const batch of writes) await storage.write(batch)
    const wall = performance.now() - started
    const used = process.cpuUsage(cpu)
    return { wall, cpu: (used.user + used.system) / 1000 }
  } finally {
    await storage.close()
  }
}

/**
 * PostgreSQL's bulk writes against SQLite's in `rounds` alternated rounds (each a fresh storage
 * of each, the first backend changing every round), because one pass of each swings by ±30% on
 * a shared machine: the medians, and the median of the rounds' ratios, which the goal reads.
 * The client's CPU tells the adapter's own work from the server's.
 */
export async function compareBulkWrites(
  sqlite: Open,
  postgres: Open,
  fixture: Fixture,
  rounds: number,
): Promise<number> {
  const results: Record<"sqlite" | "postgres", Measured[]> = { sqlite: [], postgres: [] }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["sqlite", "postgres"] as const) : (["postgres", "sqlite"] as const)
    for (const name of order)
      results[name].push(await bulkWrite(name === "sqlite" ? sqlite : postgres, fixture))
  }
  const ratios = results.postgres.map((result, round) => results.sqlite[round]!.wall / result.wall)
  console.log(`Bulk writes (1,100 rows per write()), ${rounds} alternated rounds, medians:`)
  printTable(
    ["backend", "rows/s", "wall ms", "this process's CPU ms"],
    (["sqlite", "postgres"] as const).map((name) => {
      const wall = median(results[name].map((result) => result.wall))
      return [
        name,
        Math.round(ROWS / (wall / 1000)).toLocaleString("en-US"),
        wall.toFixed(0),
        median(results[name].map((result) => result.cpu)).toFixed(0),
      ]
    }),
  )
  const ratio = median(ratios)
  console.log(
    `PostgreSQL / SQLite rows/s, median of the rounds: ${ratio.toFixed(2)}x ` +
      `(rounds: ${ratios.map((value) => value.toFixed(2)).join(", ")})`,
  )
  console.log(`Goal (PostgreSQL bulk writes at least SQLite's rows/s): ${ratio >= 1 ? "met" : "MISSED"}\n`)
  return ratio
}
