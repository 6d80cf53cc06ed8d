import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { importOptional } from "../util/import-optional.js"

/** Where `serve` listens: the port and the host name. */
export type ServeOptions = {
  /** Default 4096; 0 picks a free port (read it from the result). */
  port?: number
  /** Default "127.0.0.1": reachable from this machine only. An IPv6 address may be bracketed, as in a URL: "[::1]". */
  hostname?: string
}

/** A server `serve` started: where it listens, and how to stop it. */
export type RunningServer = {
  /** `http://<hostname>:<port>` */
  url: string
  /** The port it listens on: the one asked for, or the one picked for port 0. */
  port: number
  /** Stops listening and ends open connections, event streams included, so it never hangs. */
  close(): Promise<void>
}

type FetchApp = { fetch: (request: Request) => Response | Promise<Response> }

/** Serves an app (`createServer(runtime)`) on Node's HTTP server; resolves once it listens. */
export async function serve(app: FetchApp, options: ServeOptions = {}): Promise<RunningServer> {
  // Loaded here, by a name bundlers do not follow, so that createServer alone (on Bun, Deno, in a
  // bundled Worker) does not need the Node adapter.
  const { serve: serveNode } = await importOptional<typeof import("@hono/node-server")>("@hono/node-server")
  // Node listens on a bare IPv6 address; "[::1]" (as written in URLs) would be looked up as a name.
  const hostname = (options.hostname ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1")
  const denied = deniedListen(hostname, options.port ?? 4096)
  if (denied) throw denied
  return new Promise((resolve, reject) => {
    const server = serveNode(
      { fetch: (request) => app.fetch(request), port: options.port ?? 4096, hostname },
      (info: AddressInfo) => {
        server.off("error", reject)
        const host = info.family === "IPv6" ? `[${info.address}]` : info.address
        resolve({
          url: `http://${host}:${info.port}`,
          port: info.port,
          close: () => closeServer(server as Server),
        })
      },
    )
    server.once("error", reject)
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()))
    // Open event streams never end on their own; close() alone would wait for them.
    server.closeAllConnections()
  })
}

type DenoPermissions = {
  permissions: { requestSync(descriptor: { name: "net"; host: string }): { state: string } }
  errors: { NotCapable: new (message: string) => Error }
}

/**
 * Under Deno, the error for a listen that --allow-net does not grant, or undefined when it is
 * granted (or this is not Deno). Deno's node:http throws that refusal after listen() returns,
 * where neither a catch nor an "error" listener reaches it and the process dies; asked first
 * (as Deno itself asks: a prompt on a terminal), serve() can reject with it instead.
 */
function deniedListen(hostname: string, port: number): Error | undefined {
  const deno = (globalThis as { Deno?: DenoPermissions }).Deno
  if (!deno) return undefined
  const host = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`
  if (deno.permissions.requestSync({ name: "net", host }).state === "granted") return undefined
  return new deno.errors.NotCapable(`Requires net access to "${host}", run again with the --allow-net flag`)
}
