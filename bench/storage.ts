import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import Database from "better-sqlite3"
import pg from "pg"
import { createGenerator, type Generator } from "../src/id/identifier.js"
import type { Info as MessageInfo } from "../src/message/info.js"
import type { Part } from "../src/message/part.js"
import type { Info as SessionInfo } from "../src/session/info.js"
import { MemoryStorage } from "../src/storage/memory.js"
import type { Storage } from "../src/storage/port.js"
import { PostgresStorage } from "../src/storage/postgres/index.js"
import { decodeRow } from "../src/storage/rows.js"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { PART_PAGE } from "../src/storage/sqlite/sqlite-storage.js"
import { SQL } from "../src/storage/sqlite/statements.js"
import { benchPostgres } from "./postgres.js"
import { median, printTable } from "./report.js"

const MESSAGES = 2_000
const PARTS_PER_MESSAGE = 10
const LOADS = 9
const ROWS = MESSAGES * (1 + PARTS_PER_MESSAGE)

type Fixture = { session: SessionInfo; messages: { info: MessageInfo; parts: Part[] }[] }
type Result = { backend: string; writeMs: number; loadMs: number }

const LOREM =
  "The agent reads the repository, runs the failing test, and traces the error to a missing null check " +
  "in the session loader. It proposes a patch that guards the lookup, adds a regression test, and explains " +
  "why the earlier fix only hid the symptom. The user asks for a smaller diff; the agent trims the change. "

/** Deterministic text of about `length` characters, varied by `seed` so rows differ. */
function text(seed: number, length: number): string {
  const start = (seed * 37) % LOREM.length
  return (LOREM.slice(start) + LOREM.repeat(Math.ceil(length / LOREM.length) + 1)).slice(0, length)
}

/** One session of alternating user and assistant turns, shaped like a long coding session. */
function buildFixture(ids: Generator): Fixture {
  const tokens = { input: 1200, output: 300, reasoning: 80, cache: { read: 900, write: 100 } }
  const session: SessionInfo = {
    id: ids.descending("session"),
    slug: "bench-session",
    directory: "/home/user/project",
    title: "Benchmark session",
    version: "0.1.0",
    time: { created: 1, updated: 2 },
    cost: 0,
    tokens,
  }
  const messages: Fixture["messages"] = []
  let lastUser = ""
  for (let index = 0; index < MESSAGES; index++) {
    const id = ids.ascending("message")
    const at = 1_700_000_000_000 + index * 1000
    const info: MessageInfo =
      index % 2 === 0
        ? {
            id,
            sessionID: session.id,
            role: "user",
            time: { created: at },
            agent: "build",
            model: { providerID: "anthropic", modelID: "claude" },
          }
        : {
            id,
            sessionID: session.id,
            role: "assistant",
            time: { created: at, completed: at + 900 },
            parentID: lastUser,
            agent: "build",
            providerID: "anthropic",
            modelID: "claude",
            path: { cwd: "/home/user/project", root: "/home/user/project" },
            cost: 0.0042,
            tokens,
            finish: "tool-calls",
          }
    if (info.role === "user") lastUser = id
    const base = () => ({ id: ids.ascending("part"), sessionID: session.id, messageID: id })
    const tool = (n: number, output: string): Part => ({
      ...base(),
      type: "tool",
      callID: `call_${index}_${n}`,
      tool: n % 2 === 0 ? "read" : "bash",
      state: {
        status: "completed",
        input:
          n % 2 === 0
            ? { filePath: `/home/user/project/src/module-${n}.ts` }
            : { command: "npm test -- --run" },
        output,
        title: `step ${n}`,
        metadata: { truncated: false, exit: 0 },
        time: { start: at + n, end: at + n + 50 },
      },
    })
    const parts: Part[] = [
      { ...base(), type: "step-start", snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" },
      { ...base(), type: "reasoning", text: text(index, 300), time: { start: at, end: at + 20 } },
      { ...base(), type: "text", text: text(index + 1, 400), time: { start: at + 20, end: at + 40 } },
      tool(1, text(index + 2, 1500)),
      tool(2, text(index + 3, 800)),
      tool(3, text(index + 4, 300)),
      { ...base(), type: "text", text: text(index + 5, 200), time: { start: at + 60, end: at + 70 } },
      tool(4, text(index + 6, 600)),
      {
        ...base(),
        type: "patch",
        hash: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        files: ["/home/user/project/src/a.ts"],
      },
      { ...base(), type: "step-finish", reason: "tool-calls", cost: 0.0042, tokens },
    ]
    messages.push({ info, parts })
  }
  return { session, messages }
}

async function measure(backend: string, storage: Storage, fixture: Fixture): Promise<Result> {
  const started = performance.now()
  await storage.write([{ type: "session.put", info: fixture.session }])
  // One write per message and per part, as a live agent persists them.
  for (const message of fixture.messages) {
    await storage.write([{ type: "message.put", info: message.info }])
    for (const part of message.parts) await storage.write([{ type: "part.put", part }])
  }
  const writeMs = performance.now() - started
  return { backend, writeMs, loadMs: await medianLoad(backend, storage, fixture.session.id) }
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

/**
 * Where an SQLite load spends its time: the adapter's own pipeline replayed on a second,
 * read-only connection with a timer around each step, so the phases add up to about one load.
 * The queries are the messages, then the parts in pages (as arrays of columns, as the adapter
 * reads them with better-sqlite3); each page is parsed before the next is read; attaching puts
 * each part on its message. Garbage collection counts towards whichever step triggers it. The
 * zod decode of every row, which rows carrying the current stamp skip, is timed apart.
 */
function profileSqliteLoad(file: string, sessionID: string) {
  const db = new Database(file, { readonly: true })
  const messages = db.prepare(SQL.listMessages)
  const firstParts = db.prepare(SQL.listSessionParts).raw(true)
  const nextParts = db.prepare(SQL.listSessionPartsAfter).raw(true)
  type PartTuple = [messageID: string, id: string, stamp: number | null, data: string]
  const phases = {
    query: [] as number[],
    parse: [] as number[],
    attach: [] as number[],
    decode: [] as number[],
  }
  let queries = 0
  for (let run = 0; run < LOADS; run++) {
    let query = 0
    let parse = 0
    let attach = 0
    let start = performance.now()
    const rows = messages.all(sessionID) as { id: string; data: string }[]
    query += performance.now() - start
    start = performance.now()
    const infos = rows.map((row) => JSON.parse(row.data) as unknown)
    parse += performance.now() - start
    start = performance.now()
    const byID = new Map<string, { info: unknown; parts: unknown[] }>()
    for (const [index, row] of rows.entries()) byID.set(row.id, { info: infos[index], parts: [] })
    attach += performance.now() - start
    queries = 1
    let page: PartTuple[] | undefined
    for (;;) {
      start = performance.now()
      const last = page?.[page.length - 1]
      page = (
        last === undefined
          ? firstParts.all(sessionID, PART_PAGE)
          : nextParts.all(sessionID, last[0], last[1], PART_PAGE)
      ) as PartTuple[]
      queries++
      query += performance.now() - start
      start = performance.now()
      const values = page.map((row) => JSON.parse(row[3]) as unknown)
      parse += performance.now() - start
      start = performance.now()
      for (const [index, row] of page.entries()) byID.get(row[0])?.parts.push(values[index])
      attach += performance.now() - start
      if (page.length < PART_PAGE) break
    }
    phases.query.push(query)
    phases.parse.push(parse)
    phases.attach.push(attach)
    start = performance.now()
    for (const message of byID.values()) {
      decodeRow("message", (message.info as { id: string }).id, message.info)
      for (const part of message.parts) decodeRow("part", (part as { id: string }).id, part)
    }
    phases.decode.push(performance.now() - start)
  }
  db.close()
  return {
    queries,
    query: median(phases.query),
    parse: median(phases.parse),
    attach: median(phases.attach),
    decode: median(phases.decode),
  }
}

/** Takes the row stamps off, as if another writer or a version before stamps had written every row. */
function removeStamps(file: string) {
  const db = new Database(file)
  for (const table of ["session", "message", "part"]) db.prepare(`UPDATE ${table} SET stamp = NULL`).run()
  db.close()
}

const ms = (value: number) => value.toFixed(1)
const perSecond = (value: number) => Math.round(ROWS / (value / 1000)).toLocaleString("en-US")

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
      `(${(bytes / 1024 / 1024).toFixed(1)} MiB of JSON); one write() per row; load = listMessages, median of ${LOADS}\n`,
  )

  const memory = new MemoryStorage()
  const memoryResult = await measure("memory", memory, fixture)
  await memory.close()

  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-"))
  try {
    const file = path.join(directory, "bench.sqlite")
    const sqlite = new SqliteStorage(file)
    const sqliteResult = await measure("sqlite (file, WAL)", sqlite, fixture)
    await sqlite.close()

    const results = [memoryResult, sqliteResult]
    const postgres = await benchPostgres()
    if (postgres) {
      try {
        const pool = new pg.Pool({ connectionString: postgres.url })
        await pool.query("DROP SCHEMA IF EXISTS bench_storage CASCADE")
        await pool.end()
        const storage = new PostgresStorage({ connectionString: postgres.url }, { schema: "bench_storage" })
        await storage.write([]) // migrate before the clock starts
        results.push(await measure("postgres (local server)", storage, fixture))
        await storage.close()
      } finally {
        postgres.stop()
      }
    }
    printTable(
      ["backend", "write ms", "write rows/s", "load ms (median)", "load rows/s"],
      results.map((r) => [r.backend, ms(r.writeMs), perSecond(r.writeMs), ms(r.loadMs), perSecond(r.loadMs)]),
    )
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`
    console.log(
      `\nSQLite / memory: write ${ratio(sqliteResult.writeMs, memoryResult.writeMs)}, ` +
        `load ${ratio(sqliteResult.loadMs, memoryResult.loadMs)}`,
    )
    const target = sqliteResult.loadMs < 100 ? "met" : "MISSED"
    console.log(`Target (SQLite load under 100 ms): ${target}\n`)

    const phases = profileSqliteLoad(file, fixture.session.id)
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

    removeStamps(file)
    const unstamped = new SqliteStorage(file)
    const unstampedMs = await medianLoad("sqlite, unstamped", unstamped, fixture.session.id)
    await unstamped.close()
    console.log(
      `\nSQLite load of the same rows without stamps (every row validated, as rows from another writer ` +
        `or from before row stamps are): ${ms(unstampedMs)} ms (median of ${LOADS})`,
    )
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
}
