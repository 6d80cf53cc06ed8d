import { spawn } from "node:child_process"
import fs from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import Database from "better-sqlite3"
import { SqliteStorage } from "../src/storage/sqlite/index.js"
import { median, printTable } from "./report.js"

const HOLD_MS = 3000
const WRITES = 20
const ROUNDS = 2

/**
 * Another process holding the write lock of `file` (BEGIN IMMEDIATE and an uncommitted insert)
 * for HOLD_MS. Resolves once it holds the lock, with a promise of its exit.
 */
async function holdLock(file: string): Promise<{ released: Promise<number> }> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const script = `
    const db = new (require(${JSON.stringify(driver)}))(${JSON.stringify(file)})
    db.exec("CREATE TABLE IF NOT EXISTS lock_holder (at INTEGER)")
    db.exec("BEGIN IMMEDIATE")
    db.prepare("INSERT INTO lock_holder (at) VALUES (?)").run(Date.now())
    console.log("locked")
    setTimeout(() => { db.exec("COMMIT"); db.close(); console.log("released " + Date.now()) }, ${HOLD_MS})`
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const first = await lines.next()
  if (first.value !== "locked") throw new Error(`lock holder: expected "locked", got ${first.value}`)
  const released = lines.next().then(({ value }) => Number(String(value).split(" ")[1]))
  return { released: released.finally(() => new Promise((resolve) => child.once("exit", resolve))) }
}

/** The longest time the event loop went without running timers (a setInterval drift probe). */
function stallProbe(intervalMs = 5): { stop(): number } {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last - intervalMs)
    last = now
  }, intervalMs)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(longest, performance.now() - last - intervalMs)
    },
  }
}

type Figures = { stall: number; lag: number }

/** Writes while the lock is held: the longest stall, and how long after the release the last write landed. */
async function round(file: string, writes: () => Promise<void>): Promise<Figures> {
  const { released } = await holdLock(file)
  const probe = stallProbe()
  await writes()
  const done = Date.now()
  const stall = probe.stop()
  return { stall, lag: done - (await released) }
}

function baseline(file: string): () => Promise<void> {
  // What SqliteStorage did before: SQLite waits in the driver, on the thread, up to 5 s.
  return async () => {
    const db = new Database(file)
    db.pragma("busy_timeout = 5000")
    const insert = db.prepare("INSERT INTO kv (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING")
    for (let index = 0; index < WRITES; index++) insert.run(`baseline/${index}`)
    db.close()
  }
}

function agentloop(storage: SqliteStorage): () => Promise<void> {
  // All at once, as a runtime's sessions write: each call's first attempt runs in this turn.
  return async () => {
    const writes = Array.from({ length: WRITES }, (_, index) =>
      storage.write([{ type: "value.put", key: `agentloop/${index}`, value: index }]),
    )
    await Promise.all(writes)
  }
}

export async function runLocksBench(): Promise<void> {
  console.log(
    `Locks: another process holds the SQLite write lock for ${HOLD_MS} ms while this one makes ` +
      `${WRITES} writes; median of ${ROUNDS} rounds\n`,
  )
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-locks-"))
  try {
    const file = path.join(directory, "locks.sqlite")
    const storage = new SqliteStorage(file)
    // The alternative weighed: SQLite waiting 20 ms itself before each asynchronous retry (set
    // on a connection handed to the storage).
    const connection = new Database(file)
    const waiting = new SqliteStorage(connection)
    connection.pragma("busy_timeout = 20")
    const rows: [string, () => Promise<void>, Figures[]][] = [
      ["raw better-sqlite3, busy_timeout = 5000 (before)", baseline(file), []],
      ["SqliteStorage with busy_timeout = 20 (not chosen)", agentloop(waiting), []],
      ["SqliteStorage (busy_timeout = 0, async backoff)", agentloop(storage), []],
    ]
    for (let index = 0; index < ROUNDS; index++)
      for (const [, writes, figures] of rows) figures.push(await round(file, writes))
    await storage.close()
    await waiting.close()
    printTable(
      ["writer", "longest event-loop stall ms", "last write after release ms"],
      rows.map(([name, , figures]) => [
        name,
        median(figures.map((figure) => figure.stall)).toFixed(0),
        median(figures.map((figure) => figure.lag)).toFixed(0),
      ]),
    )
    console.log()
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
}
