// A throwaway PostgreSQL cluster for the tests and `npm run db:start`: initdb in a temp
// directory, the server on a free local port with its socket in that directory, no system
// service. initdb refuses to run as root, so as root the cluster runs as an unprivileged user.
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export type Cluster = { url: string; stop(): void }

/** The directory holding initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<v>/bin. */
export function findPostgres(): string | undefined {
  const onPath = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).stdout.trim()
  if (onPath) return join(onPath, "..")
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  for (const version of versions)
    if (existsSync(join(root, version, "bin", "initdb"))) return join(root, version, "bin")
  return undefined
}

export async function startCluster(bin: string): Promise<Cluster> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-pg-"))
  const data = join(directory, "data")
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? unprivilegedUser() : undefined
  if (user) {
    chownSync(directory, user.uid, user.gid)
    chmodSync(directory, 0o700)
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = user
      ? [
          "setpriv",
          [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", join(bin, command), ...args],
        ]
      : [join(bin, command), args]
    execFileSync(file as string, argv as string[], {
      stdio: "pipe",
      env: { ...process.env, LC_ALL: "C.UTF-8" },
    })
  }
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"])
  run("pg_ctl", [
    "-D",
    data,
    "-l",
    join(directory, "log"),
    "-w",
    "-t",
    "30",
    "-o",
    `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
    "start",
  ])
  let stopped = false
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      if (stopped) return
      stopped = true
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"])
      } finally {
        rmSync(directory, { recursive: true, force: true })
      }
    },
  }
}

/** As root, PostgreSQL refuses to run: the user it runs as instead. */
export function unprivilegedUser(): { uid: number; gid: number } {
  for (const name of ["postgres", "nobody"]) {
    const found = spawnSync("id", ["-u", name], { encoding: "utf8" })
    if (found.status === 0)
      return {
        uid: Number(found.stdout.trim()),
        gid: Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim()),
      }
  }
  throw new Error("pg-cluster: running as root, and there is no postgres or nobody user to run PostgreSQL as")
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      )
    })
  })
}
