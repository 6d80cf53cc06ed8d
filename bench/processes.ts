import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { benchPostgres } from "./postgres.js"
import { median, printTable } from "./report.js"

const PROCESSES = 4
const SESSIONS_PER_PROCESS = 5
const STEPS = 10
const ROUNDS = 3
const worker = fileURLToPath(new URL("./process-worker.ts", import.meta.url))

/** One round: the workers start and create their sessions, then all run at once; wall time of the run. */
async function round(env: Record<string, string>): Promise<number> {
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, ["--import", "tsx", worker], {
      env: { ...process.env, ...env, SESSIONS: String(SESSIONS_PER_PROCESS), STEPS: String(STEPS) },
      stdio: ["pipe", "pipe", "inherit"],
    }),
  )
  const exited = children.map((child) => new Promise((resolve) => child.once("exit", resolve)))
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]())
  const next = async (index: number, expected: string) => {
    const { value } = await lines[index]!.next()
    if (value !== expected) throw new Error(`worker ${index}: expected ${expected}, got ${value}`)
  }
  await Promise.all(children.map((_, index) => next(index, "ready")))
  const started = performance.now()
  for (const child of children) child.stdin!.write("go\n")
  await Promise.all(children.map((_, index) => next(index, "done")))
  const ms = performance.now() - started
  await Promise.all(exited)
  return ms
}

export async function runProcessesBench(): Promise<void> {
  const steps = PROCESSES * SESSIONS_PER_PROCESS * STEPS
  console.log(
    `Processes: ${PROCESSES} processes × ${SESSIONS_PER_PROCESS} sessions × ${STEPS} steps (${steps} model calls), ` +
      `scripted model, all sessions at once after a warm-up prompt in each worker; wall time of the run, median of ${ROUNDS}\n`,
  )
  const rows: string[][] = []
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "agentloop-bench-processes-"))
  try {
    const times: number[] = []
    for (let index = 0; index < ROUNDS; index++)
      times.push(await round({ STORAGE: "sqlite", FILE: path.join(directory, `bench-${index}.sqlite`) }))
    rows.push(["sqlite (one file, WAL)", ...figures(median(times), steps)])
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
  const postgres = await benchPostgres()
  if (postgres) {
    try {
      const times: number[] = []
      for (let index = 0; index < ROUNDS; index++) {
        const pool = new pg.Pool({ connectionString: postgres.url })
        await pool.query("DROP SCHEMA IF EXISTS bench_processes CASCADE")
        await pool.end()
        times.push(await round({ STORAGE: "postgres", URL: postgres.url }))
      }
      rows.push(["postgres (local server)", ...figures(median(times), steps)])
      // The same without the coordinator: what the storage costs, apart from ownership and events.
      const alone: number[] = []
      for (let index = 0; index < ROUNDS; index++) {
        const pool = new pg.Pool({ connectionString: postgres.url })
        await pool.query("DROP SCHEMA IF EXISTS bench_processes CASCADE")
        await pool.end()
        alone.push(await round({ STORAGE: "postgres", URL: postgres.url, COORDINATOR: "off" }))
      }
      rows.push(["postgres, coordinator: false", ...figures(median(alone), steps)])
    } finally {
      postgres.stop()
    }
  }
  printTable(["storage", "wall ms", "steps/s", "ms per step"], rows)
  console.log()
}

function figures(ms: number, steps: number): string[] {
  return [ms.toFixed(0), (steps / (ms / 1000)).toFixed(0), (ms / steps).toFixed(2)]
}
