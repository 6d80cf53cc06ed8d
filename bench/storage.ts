import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import pg from "pg"
import { createGenerator } from "../src/id/identifier.js"
import { MemoryStorage } from "../src/storage/memory.js"
import type { Storage } from "../src/storage/port.js"
import { PostgresStorage } from "../src/storage/postgres/index.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { benchPostgres, profilePostgresLoad } from "./postgres.js"
import { median, printTable } from "./report.js"
import { compareBulkWrites } from "./storage-bulk.js"
import {
  batches,
  buildFixture,
  type Fixture,
  MESSAGES,
  PARTS_PER_MESSAGE,
  ROWS,
  type WriteMode,
} from "./storage-fixture.js"
import { profileSqliteLoad, removeStamps } from "./storage-sqlite-phases.js"

const LOADS = 9
/** Alternated rounds of the bulk writes on SQLite and PostgreSQL (see compareBulkWrites). */
const BULK_ROUNDS = Number(process.env.BENCH_BULK_ROUNDS ?? 7)
const MODES: { mode: WriteMode; label: string }[] = [
  { mode: "row", label: "one write() per row (22,001 writes)" },
  { mode: "message", label: "one write() per message with its parts (2,001)" },
  { mode: "bulk", label: "1,100 rows per write() (21)" },
]

/** A storage to measure: a fresh, empty one for each write mode. */
type Backend = { name: string; open(mode: WriteMode): Promise<Storage> }
type Result = { writeMs: Record<WriteMode, number>; loadMs: number }

/** Writes the fixture in each mode (a fresh storage each), then loads the one written row by row. */
async function measure(backend: Backend, fixture: Fixture): Promise<Result> {
  const writeMs = { row: 0, message: 0, bulk: 0 }
  let loadMs = 0
  for (const { mode } of MODES) {
    const storage = await backend.open(mode)
    const writes = batches(fixture, mode)
    const started = performance.now()
    for (const batch of writes) await storage.write(batch)
    writeMs[mode] = performance.now() - started
    if (mode === "row") loadMs = await medianLoad(backend.name, storage, fixture.session.id)
    await storage.close()
  }
  return { writeMs, loadMs }
}

/** The median time of LOADS loads of the whole session. */
async function medianLoad(backend: string, storage: Storage, sessionID: string): Promise<number> {
  const times: number[] = []
  for (let run = 0; run < LOADS; run++) {
    const start = performance.now()
    const loaded = await storage.listMessages(sessionID)
    times.push(performance.now() - start)
    if (loaded.length !== MESSAGES || loaded[MESSAGES - 1]!.parts.length !== PARTS_PER_MESSAGE) {
      throw new Error(`${backend}: loaded ${loaded.length} messages, expected ${MESSAGES}`)
    }
  }
  return median(times)
}

/** PostgresStorage on a fresh schema per mode, migrated before the clock starts. */
function postgresBackend(url: string): Backend {
  return { name: "postgres (local server)", open: (mode) => freshPostgres(url, `bench_storage_${mode}`) }
}

/** PostgresStorage on `schema`, dropped first and migrated. */
async function freshPostgres(url: string, schema: string): Promise<Storage> {
  const pool = new pg.Pool({ connectionString: url })
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await pool.end()
  const storage = new PostgresStorage({ connectionString: url }, { schema })
  await storage.write([])
  return storage
}

const ms = (value: number) => value.toFixed(1)
const perSecond = (value: number) => Math.round(ROWS / (value / 1000)).toLocaleString("en-US")
const ratio = (value: number) => `${value.toFixed(2)}x`

function printWrites(results: { name: string; result: Result }[], sqlite: Result, postgres?: Result) {
  console.log("Writes, rows per second (each mode on a fresh storage):")
  printTable(
    ["writes", ...results.map((r) => r.name), ...(postgres ? ["postgres / sqlite"] : [])],
    MODES.map(({ mode, label }) => [
      label,
      ...results.map((r) => perSecond(r.result.writeMs[mode])),
      ...(postgres ? [ratio(sqlite.writeMs[mode] / postgres.writeMs[mode])] : []),
    ]),
  )
  console.log("")
}

function printLoads(results: { name: string; result: Result }[], sqlite: Result, postgres?: Result) {
  console.log(`Load (listMessages of the session written row by row, median of ${LOADS}):`)
  printTable(
    ["backend", "load ms", "load rows/s", "/ sqlite"],
    results.map((r) => [
      r.name,
      ms(r.result.loadMs),
      perSecond(r.result.loadMs),
      ratio(r.result.loadMs / sqlite.loadMs),
    ]),
  )
  if (postgres) {
    const load = postgres.loadMs / sqlite.loadMs
    console.log(`Goal (PostgreSQL load at most 1.5x SQLite's): ${load <= 1.5 ? "met" : "MISSED"}`)
  }
  console.log(`Target (SQLite load under 100 ms): ${sqlite.loadMs < 100 ? "met" : "MISSED"}\n`)
}

export async function runStorageBench(): Promise<void> {
  // A fixed clock: the IDs are a pure sequence, so every backend stores the same rows.
  const fixture = buildFixture(createGenerator(() => 1_700_000_000_000))
  const bytes = fixture.messages.reduce(
    (sum, message) =>
      sum +
      JSON.stringify(message.info).length +
      message.parts.reduce((n, part) => n + JSON.stringify(part).length, 0),
    0,
  )
  console.log(
    `Storage: 1 session, ${MESSAGES} messages, ${MESSAGES * PARTS_PER_MESSAGE} parts ` +
      `(${(bytes / 1024 / 1024).toFixed(1)} MiB of JSON); load = listMessages, median of ${LOADS}\n`,
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  const file = (mode: WriteMode) => path.join(directory, `bench-${mode}.sqlite`)
  const postgres = await benchPostgres()
  try {
    const results = [
      {
        name: "memory",
        result: await measure({ name: "memory", open: async () => new MemoryStorage() }, fixture),
      },
      {
        name: "sqlite (file, WAL)",
        result: await measure(
          { name: "sqlite", open: async (mode) => new SqliteStorage(file(mode)) },
          fixture,
        ),
      },
    ]
    if (postgres)
      results.push({
        name: "postgres (local server)",
        result: await measure(postgresBackend(postgres.url), fixture),
      })
    const sqlite = results[1]!.result
    const pgResult = results[2]?.result
    printWrites(results, sqlite, pgResult)
    printLoads(results, sqlite, pgResult)
    if (postgres) await profilePostgresLoad(postgres.url, "bench_storage_row", fixture.session.id, LOADS)
    printSqlitePhases(file("row"), fixture.session.id)
    removeStamps(file("row"))
    const unstamped = new SqliteStorage(file("row"))
    const unstampedMs = await medianLoad("sqlite, unstamped", unstamped, fixture.session.id)
    await unstamped.close()
    console.log(
      `\nSQLite load of the same rows without stamps (every row validated, as rows from another writer ` +
        `or from before row stamps are): ${ms(unstampedMs)} ms (median of ${LOADS})\n`,
    )
    // Last: their writes would leave the server busy (checkpoints, autovacuum) under the loads.
    if (postgres) {
      let fresh = 0
      await compareBulkWrites(
        async () => new SqliteStorage(path.join(directory, `bulk-${fresh++}.sqlite`)),
        () => freshPostgres(postgres.url, `bench_storage_bulk_${fresh++}`),
        fixture,
        BULK_ROUNDS,
      )
    }
  } finally {
    postgres?.stop()
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

function printSqlitePhases(file: string, sessionID: string) {
  const phases = profileSqliteLoad(file, sessionID, LOADS)
  console.log("SQLite load, by phase (median; see profileSqliteLoad):")
  const rows = ROWS.toLocaleString("en-US")
  printTable(
    ["phase", "ms"],
    [
      [`${phases.queries} queries (messages, then parts in pages)`, ms(phases.query)],
      [`JSON.parse of ${rows} rows`, ms(phases.parse)],
      ["attach parts to their messages", ms(phases.attach)],
      [`zod decode of ${rows} rows (skipped: every row is stamped)`, ms(phases.decode)],
    ],
  )
}
