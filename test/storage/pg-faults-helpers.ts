// Helpers of the PostgreSQL fault tests: a cluster of their own that they may stop and restart
// (the shared one of test/setup serves other test files at the same time), and TCP proxies that
// cut one connection around its COMMIT or keep new connections waiting.
import { execFile, execFileSync, spawnSync } from "node:child_process"
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort, unprivilegedUser } from "../setup/pg-cluster.js"

export type OwnCluster = {
  url: string
  stop(): Promise<void>
  start(): Promise<void>
  restart(): Promise<void>
  remove(): void
}

/** initdb and pg_ctl as test/setup/pg-cluster.ts runs them, with stop and start kept apart. */
export async function ownCluster(bin: string): Promise<OwnCluster> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-pg-faults-"))
  const data = join(directory, "data")
  const port = await freePort()
  const user = process.getuid?.() === 0 ? unprivilegedUser() : undefined
  if (user) {
    chownSync(directory, user.uid, user.gid)
    chmodSync(directory, 0o700)
  }
  const command = (name: string, args: string[]): [string, string[]] =>
    user
      ? [
          "setpriv",
          [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", join(bin, name), ...args],
        ]
      : [join(bin, name), args]
  const env = { ...process.env, LC_ALL: "C.UTF-8" }
  // Asynchronous, so that the clients under test see the server go and come back as it happens.
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`
  const pgCtl = async (action: string) => {
    const args = [
      "-D",
      data,
      "-l",
      join(directory, "log"),
      "-w",
      "-t",
      "30",
      "-m",
      "fast",
      "-o",
      options,
      action,
    ]
    await promisify(execFile)(...command("pg_ctl", args), { env })
  }
  execFileSync(
    ...command("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]),
    {
      stdio: "pipe",
      env,
    },
  )
  await pgCtl("start")
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pgCtl("stop"),
    start: () => pgCtl("start"),
    restart: () => pgCtl("restart"),
    remove() {
      spawnSync(...command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]))
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** What node-postgres sends to end a transaction (a simple query). */
const COMMIT = Buffer.from("COMMIT")

export type CommitCut = "before-commit" | "after-commit"

/**
 * A TCP proxy in front of a PostgreSQL server. `arm(cut)` makes it cut the next connection that
 * sends COMMIT: "before-commit" drops the COMMIT (the server rolls back), "after-commit" lets
 * it through and drops the server's answer (the server commits; the client cannot know).
 */
export async function commitCutter(target: { host: string; port: number }) {
  let armed: CommitCut | undefined
  let cuts = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client).add(upstream)
    let dropAnswer = false
    const cut = () => {
      cuts++
      client.destroy()
      upstream.destroy()
    }
    client.on("data", (chunk: Buffer) => {
      if (armed && chunk.includes(COMMIT)) {
        const mode = armed
        armed = undefined
        if (mode === "before-commit") return cut()
        dropAnswer = true
      }
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => (dropAnswer ? cut() : client.write(chunk)))
    for (const socket of [client, upstream]) {
      socket.on("error", () => undefined)
      socket.on("close", () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    arm(cut: CommitCut) {
      armed = cut
    },
    get cuts() {
      return cuts
    },
    close(): Promise<void> {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * A TCP proxy in front of a PostgreSQL server that can keep new connections waiting: from
 * `hold()` on, a connection is accepted but goes nowhere until `open()`; `hold()` resolves once
 * one waits. Connections made before `hold()` carry on.
 */
export async function connectionGate(target: { host: string; port: number }) {
  let holding = false
  let arrived = () => {}
  const waiting: (() => void)[] = []
  const sockets = new Set<net.Socket>()
  const pass = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(upstream)
    client.pipe(upstream).pipe(client)
    upstream.on("error", () => undefined)
    for (const socket of [client, upstream])
      socket.on("close", () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
  }
  const server = net.createServer((client) => {
    sockets.add(client)
    client.on("error", () => undefined)
    if (!holding) return pass(client)
    waiting.push(() => pass(client))
    arrived()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    hold(): Promise<void> {
      holding = true
      return new Promise((resolve) => {
        arrived = resolve
      })
    },
    open(): void {
      holding = false
      for (const go of waiting.splice(0)) go()
    },
    close(): Promise<void> {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
