import { channel } from "node:diagnostics_channel"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { afterEach } from "vitest"
import type { Tool } from "../../../src/index.js"
import { runTool } from "../../../src/tool/ai-tools.js"

/**
 * A real HTTP server on 127.0.0.1 that counts what reaches it: `connections` (TCP connections
 * accepted), `requests` (requests read) and `closed` (connections that have ended).
 */
export async function localServer(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const sockets = new Set<Socket>()
  const seen = { connections: 0, requests: 0, closed: 0 }
  const closedWaiters: (() => void)[] = []
  const server = createServer((request, response) => {
    seen.requests++
    handler(request, response)
  })
  server.on("connection", (socket) => {
    seen.connections++
    sockets.add(socket)
    socket.on("close", () => {
      sockets.delete(socket)
      seen.closed++
      for (const wake of closedWaiters.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    url: (path = "/") => `http://127.0.0.1:${port}${path}`,
    seen,
    /** Resolves once `count` connections have closed (bounded by the test's own timeout). */
    async closedAtLeast(count: number) {
      while (seen.closed < count) await new Promise<void>((resolve) => closedWaiters.push(resolve))
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** Counts the TCP client sockets this process creates while `run` runs (Node's `net.client.socket` channel). */
export async function socketsOpenedBy<T>(
  run: () => Promise<T>,
): Promise<{ count: number; result: PromiseSettledResult<T> }> {
  let count = 0
  const created = channel("net.client.socket")
  const onSocket = () => {
    count++
  }
  created.subscribe(onSocket)
  try {
    const [result] = await Promise.allSettled([run()])
    return { count, result: result as PromiseSettledResult<T> }
  } finally {
    created.unsubscribe(onSocket)
  }
}

/** A tool context whose asks are recorded and allowed; `abort` cancels the call. */
export function toolContext(abort: AbortSignal = new AbortController().signal) {
  const asked: Parameters<Tool.Context["ask"]>[0][] = []
  const context: Tool.Context = {
    sessionID: "session",
    messageID: "message",
    callID: "call",
    agent: "build",
    abort,
    metadata: async () => {},
    ask: async (request) => {
      asked.push(request)
    },
  }
  return { context, asked, run: (tool: Tool.Info, input: unknown) => runTool(tool, input, context) }
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a rejection")
}

/** `localServer` for the tests of one file, each server closed after its test. */
export function serversPerTest() {
  const servers: Awaited<ReturnType<typeof localServer>>[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })
  return async (handler: Parameters<typeof localServer>[0]) => {
    const server = await localServer(handler)
    servers.push(server)
    return server
  }
}
