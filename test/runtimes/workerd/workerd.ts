// Serves one bundled Worker with workerd on a free loopback port, from a config written here;
// every wait is bounded, and stop() ends the process group it started.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

/** A Durable Object class the Worker exports, with SQLite storage, bound as `binding`. */
export type DurableObjectClass = { className: string; binding: string }

/** The date and flags a Worker declares (wrangler.toml's compatibility_date and compatibility_flags). */
export type Compatibility = { date: string; flags: string[] }

export type RunningWorkerd = {
  url: string
  /** Stops workerd (its whole process group) and resolves with what it printed. */
  stop(): Promise<string>
}

const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 5_000

/** The date of a workerd build ("workerd 2026-11-17"): the newest compatibility date it accepts. */
export function workerdDate(binary: string): string {
  const version = execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 10_000 }).trim()
  const date = /\d{4}-\d{2}-\d{2}/.exec(version)?.[0]
  if (!date) throw new Error(`workerd --version printed no date: ${version}`)
  return date
}

type WorkerdOptions = {
  binary: string
  directory: string
  module: string
  compatibility: Compatibility
  durableObjects?: DurableObjectClass[]
}

export async function startWorkerd(options: WorkerdOptions): Promise<RunningWorkerd> {
  const port = await freePort()
  writeFileSync(join(options.directory, "config.capnp"), config(options, port))
  // Its own process group, so that stop() reaches whatever it started.
  const child = spawn(options.binary, ["serve", "config.capnp", "--verbose"], {
    cwd: options.directory,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout?.on("data", (data: Buffer) => {
    output += data.toString()
  })
  child.stderr?.on("data", (data: Buffer) => {
    output += data.toString()
  })
  const url = `http://127.0.0.1:${port}`
  const stop = () => stopProcess(child).then(() => output)
  try {
    await waitUntilServing(url, child, () => output)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, stop }
}

function config(options: WorkerdOptions, port: number): string {
  const objects = options.durableObjects ?? []
  const namespaces = objects.map(
    ({ className }) => `(className = "${className}", uniqueKey = "agentloop-${className}", enableSql = true)`,
  )
  const bindings = objects.map(
    ({ className, binding }) => `(name = "${binding}", durableObjectNamespace = "${className}")`,
  )
  // SQLite-backed Durable Objects need storage on disk (in memory, the SQL API is refused).
  const disk = join(options.directory, "durable-objects")
  mkdirSync(disk, { recursive: true })
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "disk", disk = (path = "${disk}", writable = true)) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "${options.module}", esModule = embed "${options.module}") ],
  compatibilityDate = "${options.compatibility.date}",
  compatibilityFlags = [ ${options.compatibility.flags.map((flag) => `"${flag}"`).join(", ")} ],
  durableObjectNamespaces = [ ${namespaces.join(", ")} ],
  durableObjectStorage = (localDisk = "disk"),
  bindings = [ ${bindings.join(", ")} ],
);
`
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

async function waitUntilServing(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`workerd exited (${child.exitCode ?? child.signalCode}):\n${output()}`)
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) })
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`workerd did not answer ${url}/health within ${START_TIMEOUT_MS} ms:\n${output()}`)
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  process.kill(-child.pid, "SIGTERM")
  const stopped = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_TIMEOUT_MS).unref()),
  ])
  if (!stopped) {
    process.kill(-child.pid, "SIGKILL")
    await exited
  }
}
